from trainlint.rule import Example, Rule


class UnparsableFile(Rule):
    """
    ## What it does
    Reports a file that cannot be decoded or parsed as Python, at the place
    where decoding or parsing failed.

    ## Why is this bad?
    Code that does not parse cannot be checked by any rule, and usually means
    a Python 2 leftover (`x.cuda(async=True)`, `print "loss"`), a merge
    conflict, or a file saved in the wrong encoding. Every other file is still
    linted.

    ## Fix safety
    There is no automatic fix: only a person knows what the code meant.
    """

    code = "TL000"
    name = "unparsable-file"
    severity = "error"
    message = "file cannot be parsed"
    bad = (
        Example("x = model.cuda(async=True)  # expect: TL000\n"),
        Example("print 'loss', loss  # expect: TL000\n"),
        Example("def train(:  # expect: TL000\n    pass\n"),
        Example("for batch in loader:\n    loss = model(batch  # expect: TL000\n"),
    )
    good = (
        "x = model.cuda(non_blocking=True)\n",
        "print('loss', loss)\n",
        "match command:\n    case 'train':\n        train()\n",
        "",
    )
