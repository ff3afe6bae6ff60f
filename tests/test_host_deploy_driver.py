"""`goclock deploy`: the display's driver (micropython-lib's ssd1306) installed with mip
through mpremote — here a fake mpremote that records what it was asked and answers as the
real one does, online or not — and a dry run that leaves nothing behind and says what a
deploy removes (issue 17 items 9 and 10)."""

import os
import stat
import sys
import tempfile

import pytest

from goclock.cli import build_parser, deploy
from goclock.link import mip
from support.cli import one_line_error, own_home, run  # noqa: F401 (own_home: autouse)
from test_host_cli import FakeBoard, firmware  # noqa: F401 (firmware: a fixture)

OFFLINE = (
    "[Errno -3] Temporary failure in name resolution requesting "
    "https://micropython.org/pi/v2/package/6/ssd1306/latest.json"
)


def fake_mpremote(tmp_path, offline=False):
    """An mpremote executable that writes its arguments to a file, then succeeds as mip
    does, or fails as mip does without the network. Returns (path, the arguments file)."""
    argv_file = tmp_path / "mpremote-argv"
    script = tmp_path / "mpremote"
    body = [
        "#!%s" % sys.executable,
        "import sys",
        "open(%r, 'a').write(' '.join(sys.argv[1:]) + '\\n')" % str(argv_file),
        "print('Install ssd1306')",
    ]
    if offline:
        body += [
            "print('Package may be partially installed')",
            "print('mpremote: %s', file=sys.stderr)" % OFFLINE,
            "sys.exit(1)",
        ]
    else:
        body += ["print('Installing: /lib/ssd1306.mpy')", "print('Done')"]
    script.write_text("\n".join(body) + "\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script), argv_file


def deploy_with(line, capsys, monkeypatch, binary, *extra, present=()):
    monkeypatch.setattr(mip, "mpremote_binary", lambda: binary)
    args = build_parser().parse_args(
        ["--port", line.path, "deploy", "--board", "pico", "--voice", "none", *extra]
    )
    boards = []
    rc = deploy.do_deploy(
        args, open_board=lambda port: boards.append(FakeBoard(port, present)) or boards[-1]
    )
    out, err = capsys.readouterr()
    return rc, out, err, boards[0]


@pytest.mark.usefixtures("firmware")
def test_deploy_installs_the_display_driver_with_mip(line, capsys, monkeypatch, tmp_path):
    binary, argv_file = fake_mpremote(tmp_path)
    rc, out, err, board = deploy_with(line, capsys, monkeypatch, binary)
    assert rc == 0, err
    assert argv_file.read_text() == "connect %s mip install ssd1306\n" % line.path
    assert "display driver: ssd1306 from micropython-lib, installed with mip" in out
    assert board.restarted and "/main.py" in board.files


@pytest.mark.usefixtures("firmware")
def test_offline_the_deploy_goes_on_and_says_how_to_install_it_later(
    line, capsys, monkeypatch, tmp_path
):
    binary, argv_file = fake_mpremote(tmp_path, offline=True)
    rc, out, err, board = deploy_with(line, capsys, monkeypatch, binary)
    assert rc == 0 and "/main.py" in board.files and board.restarted
    assert err == (
        "goclock: note: the display driver (ssd1306) is not on the board (%s): the clock "
        "runs without its display until it is; when online: mpremote connect %s mip install "
        "ssd1306\n" % (OFFLINE, line.path)
    )
    # A driver an earlier deploy put there is kept, and that is all that is said.
    rc, out, err, board = deploy_with(
        line, capsys, monkeypatch, binary, present=["/lib/ssd1306.mpy"]
    )
    assert rc == 0 and err == ""
    assert "display driver: the ssd1306 already on the board is kept (mip could not run" in out
    assert "/lib/ssd1306.mpy" in board.files


@pytest.mark.usefixtures("firmware")
def test_no_mip_never_runs_mpremote(line, capsys, monkeypatch, tmp_path):
    binary, argv_file = fake_mpremote(tmp_path)
    rc, out, err, board = deploy_with(line, capsys, monkeypatch, binary, "--no-mip")
    assert rc == 0 and not argv_file.exists()
    assert "(--no-mip)" in err and "mpremote connect %s mip install ssd1306" % line.path in err


@pytest.mark.usefixtures("firmware")
def test_without_mpremote_it_says_so(line, capsys, monkeypatch):
    rc, out, err, board = deploy_with(line, capsys, monkeypatch, None)
    assert rc == 0 and "mpremote is not installed (pip install mpremote)" in err


@pytest.mark.usefixtures("firmware")
def test_a_dry_run_leaves_no_folder_and_keeps_logs_in_words(capsys, monkeypatch, tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    rc, out, err = run(capsys, "deploy", "--board", "pico", "--dry-run", "--voice", "none")
    assert rc == 0, err
    assert os.listdir(scratch) == []  # it used to leave a goclock-deploy-* folder each run
    assert "mip install ssd1306 (the display driver, from micropython-lib)" in out
    assert "the config, the game logs and the voice packs stay" in out
    assert "files on the clock that this deploy does not write are removed" not in out
    rc, out, err = run(capsys, "deploy", "--board", "pico", "--dry-run", "--no-mip")
    assert rc == 0 and "mip install" not in out


def test_the_fake_answers_as_mpremote_does():
    """The fake's offline line is mpremote's own: its mip raises CommandError("<reason>
    requesting <url>") and its main prints it as "mpremote: ..." and exits 1."""
    import inspect

    from mpremote import main as mp_main
    from mpremote import mip as mp_mip

    assert 'f"{e.reason} requesting {package_json_url}"' in inspect.getsource(mp_mip)
    assert 'print(f"{_PROG}: {e}", file=sys.stderr)' in inspect.getsource(mp_main.main)
