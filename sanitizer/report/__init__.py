"""From a finished run to what people read: the JSON report, the text summary,
and `show`'s HTML (SVG charts) and PNG. Nothing here imports torch."""
