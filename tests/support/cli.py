"""Running the `goclock` command in-process, as the host tool's tests do (CPython).

`own_home` (autouse where imported) gives each test its own GOCLOCK_HOME and no
GOCLOCK_PORT, so a developer's presets or clock never leak in; `run` returns (exit status,
stdout, stderr); `one_line_error` is what every user-facing error must look like.
"""

import pytest

from goclock.cli import main


@pytest.fixture(autouse=True)
def own_home(tmp_path, monkeypatch):
    monkeypatch.setenv("GOCLOCK_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GOCLOCK_PORT", raising=False)


def run(capsys, *argv):
    try:
        rc = main(list(argv))
    except SystemExit as exc:  # argparse's own errors
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err


def one_line_error(rc, err, text):
    assert rc != 0 and "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("goclock: ")
    assert text in err
