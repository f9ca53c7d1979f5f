"""The report's number formats: sizes, milliseconds, ratios (theirs over ours) and rates."""

from report_fmt import fmt_ms, num, rate, ratio, size_label, table


def test_size_label():
    sizes = (1000, 1024, 3 << 20, 1 << 30, (1 << 20) + 1)
    assert [size_label(n) for n in sizes] == ["1000", "1K", "3M", "1G", "1048577"]


def test_fmt_ms_keeps_three_figures():
    got = [fmt_ms(v) for v in (None, "failed", 123.4, 12.34, 1.234, 0.1234)]
    assert got == ["", "failed", "123", "12.3", "1.23", "0.123"]


def test_ratio_is_theirs_over_ours():
    assert ratio(3.0, 2.0) == "1.50×" and ratio(25.0, 2.0) == "12.5×" and ratio(500.0, 2.0) == "250×"
    assert ratio(None, 2.0) == "" and ratio(3.0, "failed") == "" and num(True) is None


def test_rate():
    assert rate(1 << 24, 2.0) == "8.39 G" and rate(1 << 20, 10.0) == "105 M" and rate(1 << 20, None) == ""


def test_table():
    assert table(["a", "b"], [[1, "x"]]) == "| a | b |\n| ---: | ---: |\n| 1 | x |"
