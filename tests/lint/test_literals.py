"""`string_value` reads a string literal's text without `ast.literal_eval`
where it can: it must agree with LibCST's own evaluation on every literal."""

from __future__ import annotations

import libcst as cst
import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainlint.analysis.literals import is_docstring, string_value

_PREFIXES = ["", "r", "R", "u", "U", "b", "B", "rb", "Br"]
_QUOTES = ["'", '"', "'''", '"""']


def _literal(prefix: str, quote: str, body: str) -> cst.SimpleString | None:
    try:
        node = cst.parse_expression(f"{prefix}{quote}{body}{quote}")
    except Exception:  # noqa: BLE001 - not a literal at all: nothing to compare
        return None
    return node if isinstance(node, cst.SimpleString) else None


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the invalid escapes drawn
@given(
    st.sampled_from(_PREFIXES),
    st.sampled_from(_QUOTES),
    st.text(alphabet=st.sampled_from(list("ab \\nx'\"\t\r\n0{}é")), max_size=12),
)
def test_agrees_with_libcst(prefix: str, quote: str, body: str) -> None:
    node = _literal(prefix, quote, body)
    if node is None:
        return
    try:
        expected = node.evaluated_value
    except Exception:  # noqa: BLE001 - CPython refuses the literal: nothing to compare
        return
    assert string_value(node) == (expected if isinstance(expected, str) else None)


def test_cases_that_read_the_text_directly() -> None:
    assert string_value(cst.parse_expression('"cuda"')) == "cuda"
    assert string_value(cst.parse_expression("r'a\\nb'")) == "a\\nb"
    assert string_value(cst.parse_expression("'''x\ny'''")) == "x\ny"
    assert string_value(cst.parse_expression("'a\\tb'")) == "a\tb"  # an escape: evaluated


def test_bytes_f_strings_and_other_expressions_have_no_string_value() -> None:
    for text in ("b'cuda'", "f'cuda'", "cuda", "'a' 'b'", "1", "'\\x'", "'\\N{nope}'"):
        assert string_value(cst.parse_expression(text)) is None
    assert string_value(None) is None


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@given(
    st.sampled_from(_PREFIXES),
    st.sampled_from(_QUOTES),
    st.text(alphabet=st.sampled_from(list("ab \\nx'\"\t\r\n0")), max_size=8),
    st.sampled_from(["train", "val", "a'b", 'x"', "\\n"]),
)
def test_a_constant_kept_in_a_summary_tests_as_the_literal_does(prefix: str, quote: str, body: str, expected: str) -> None:
    """A builder's `shuffle=split == "train"` tested with the text a summary keeps of
    the caller's constant (`constant_text`) agrees with Python on the literal itself."""
    from trainlint.analysis.literals import constant_text
    from trainlint.summaries import shuffles_with

    node = _literal(prefix, quote, body)
    if node is None:
        return
    try:
        value = node.evaluated_value
    except Exception:  # noqa: BLE001 - CPython refuses the literal: nothing to compare
        assert constant_text(node) is None
        return
    text = constant_text(node)
    if not isinstance(value, str):
        assert text is None
        return
    assert shuffles_with(("split", "==", expected), text) is (value == expected)
    assert shuffles_with(("split", "!=", expected), text) is (value != expected)


@pytest.mark.parametrize(("source", "shuffles"), [("True", True), ("False", False), ("None", False)])
def test_a_named_constant_kept_in_a_summary_is_its_name(source: str, shuffles: bool) -> None:
    from trainlint.analysis.literals import constant_text
    from trainlint.summaries import shuffles_with

    text = constant_text(cst.parse_expression(source))
    assert text == source
    assert shuffles_with(("shuffle", "is", "True"), text) is shuffles
    assert shuffles_with(("split", "==", "train"), text) is False
    assert shuffles_with(("split", "!=", "train"), text) is True
    assert constant_text(cst.parse_expression("cfg.split")) is None


@pytest.mark.parametrize(("source", "text"), [("3", "3"), ("-1", "-1"), ("0.5", "0.5"), ("0x10", "16"),
                                              ("'train'", "'train'"), ("x", None), ("1 + 1", None)])
def test_a_constant_kept_in_a_summary_is_written_as_python_writes_it(source: str, text: str | None) -> None:
    from trainlint.analysis.literals import constant_text

    assert constant_text(cst.parse_expression(source)) == text


@pytest.mark.parametrize(("source", "fails"), [
    ("0", True), ("3", False), ("0.5", False), ("-1", True), ("None", True),
    ("True", False), ("False", True), ("'warm'", True),
])
def test_a_constant_given_to_a_guard_fails_it_as_python_does(source: str, fails: bool) -> None:
    """`if epoch > 0:` with the constant `source` in `epoch`: the guard fails where
    Python's comparison is false or raises (None, a string), so the step never runs."""
    from trainlint.analysis.literals import constant_text
    from trainlint.summaries import fails_for

    text = constant_text(cst.parse_expression(source))
    assert text is not None
    assert fails_for([(">", "0")], text) is fails
    try:
        python_passes = eval(source) > 0  # noqa: S307 - a literal of the list above
    except TypeError:
        python_passes = False
    assert python_passes is not fails


@pytest.mark.parametrize(("source", "alone"), [
    ('"""Doc."""\n', True),
    ('b"raw"\n', True),
    ('"a" "b"\n', True),
    ('"a" f"{x}"\n', True),
    ('f"{x}"\n', False),
    ('"a"; x = 1\n', False),
    ('x = "a"\n', False),
])
def test_a_string_literal_alone_reads_as_a_docstring(source: str, alone: bool) -> None:
    statement = cst.parse_module(source).body[0]
    assert is_docstring(statement) is alone
