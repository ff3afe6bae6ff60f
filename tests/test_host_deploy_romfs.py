"""`goclock deploy --romfs`: the package's .mpy files in one ROMFS image (mpremote's
format) written to the board's ROMFS partition by `mpremote romfs deploy`, the rest to
the file system; a failed write stops the deploy before anything is copied; a plain
deploy to an ESP32 whose package is in ROMFS refuses (its /rom/lib comes first on
sys.path), a Pico moves the new package there itself. The image boots on the emulated Pico in tests/rp2/test_romfs.py."""

import pytest

from goclock import firmware
from goclock.cli import build_parser, deploy
from goclock.errors import GoclockError
from goclock.link import mpremote_run
from support.cli import own_home  # noqa: F401 (autouse)
from test_host_cli import FakeBoard
from test_host_cli import firmware as firmware_fixture  # noqa: F401 (a fixture)
from test_host_deploy_driver import fake_mpremote

ROMFS_HEADER = b"\xd2\xcd\x31"  # MicroPython's ROMFS magic (extmod/vfs_rom.c)


def deploy_romfs(line, *extra, present=(), write=None):
    args = build_parser().parse_args(
        ["--port", line.path, "deploy", "--board", "pico", "--voice", "none", "--no-mip", *extra]
    )
    boards, images = [], []

    def written(port, path):
        with open(path, "rb") as f:
            images.append((port, f.read()))
        return (True, None) if write is None else write

    rc = deploy.do_deploy(
        args,
        open_board=lambda port: boards.append(FakeBoard(port, present)) or boards[-1],
        romfs=written,
    )
    return rc, (boards[0] if boards else None), images


@pytest.mark.usefixtures("firmware_fixture")
def test_the_package_goes_to_the_romfs_and_main_to_the_file_system(line, capsys):
    old = ["/lib/goclockfw/core/clockcore.mpy", "/lib/goclockfw/gone.mpy", "/config.json"]
    rc, board, images = deploy_romfs(line, "--romfs", present=old)
    assert rc == 0
    [(port, image)] = images
    assert port == line.path and image.startswith(ROMFS_HEADER)
    for name in (b"lib", b"goclockfw", b"clockcore.mpy", b"rp2board.mpy"):
        assert name in image
    assert b"esp32board" not in image and b"desktop" not in image
    # the file system: main.py and the pin map; an older /lib deploy's package removed
    assert sorted(board.files) == ["/board.json", "/config.json", "/main.py"]
    assert sorted(board.removed) == ["/lib/goclockfw/core/clockcore.mpy", "/lib/goclockfw/gone.mpy"]
    out = capsys.readouterr().out
    assert "ROMFS: %d B written" % len(image) in out and "the package in ROMFS" in out


@pytest.mark.usefixtures("firmware_fixture")
def test_a_board_without_a_partition_stops_the_deploy_before_any_copy(line):
    no_partition = (False, "romfs: no ROMFS partition on the device")
    with pytest.raises(GoclockError) as err:
        deploy_romfs(line, "--romfs", write=no_partition)
    assert "ROMFS partition was not written: romfs: no ROMFS partition" in str(err.value)
    assert "without --romfs the firmware goes to /lib/goclockfw" in str(err.value)


@pytest.mark.usefixtures("firmware_fixture")
def test_a_plain_deploy_over_a_romfs_package_is_moved_by_a_pico_refused_by_an_esp32(line, capsys):
    # A Pico moves the new /lib package into its partition when it starts (goclockfw/romfs.py)
    rc, board, images = deploy_romfs(line, present=["/rom/lib/goclockfw/__init__.mpy"])
    assert rc == 0 and not images and "/lib/goclockfw/__init__.mpy" in board.files
    assert "moves the package from /lib/goclockfw into its ROMFS partition" in (
        capsys.readouterr().out
    )
    # An ESP32 would go on running the partition's package, which comes first on sys.path
    args = build_parser().parse_args(
        ["--port", line.path, "deploy", "--board", "esp32-devkitc", "--voice", "none"]
    )
    args.no_mip = True
    with pytest.raises(GoclockError) as err:
        deploy.do_deploy(
            args,
            open_board=lambda port: FakeBoard(port, ["/rom/lib/goclockfw/__init__.mpy"]),
            romfs=lambda port, path: (True, None),
        )
    assert "runs goclock from its ROMFS partition (/rom/lib/goclockfw)" in str(err.value)
    assert "deploy with --romfs again" in str(err.value)


@pytest.mark.usefixtures("firmware_fixture")
def test_a_dry_run_says_where_the_image_goes(capsys):
    rc = deploy.do_deploy(
        build_parser().parse_args(
            ["deploy", "--board", "pico", "--voice", "none", "--dry-run", "--romfs"]
        )
    )
    out = capsys.readouterr().out
    assert rc == 0
    assert "goclock.romfs (" in out and "-> the board's ROMFS partition, mounted at /rom" in out
    assert ":/lib/goclockfw" not in out and "main.py -> :/main.py" in out


def test_the_romfs_is_written_by_mpremote_romfs_deploy(tmp_path, monkeypatch):
    binary, argv_file = fake_mpremote(tmp_path)
    monkeypatch.setattr(mpremote_run, "mpremote_binary", lambda: binary)
    assert deploy.write_romfs("/dev/ttyACM0", "/tmp/x.romfs") == (True, None)
    assert argv_file.read_text() == "connect /dev/ttyACM0 romfs deploy /tmp/x.romfs\n"
    monkeypatch.setattr(mpremote_run, "mpremote_binary", lambda: None)
    assert deploy.write_romfs("/dev/ttyACM0", "/tmp/x.romfs") == (
        False,
        "mpremote is not installed (pip install mpremote)",
    )


def test_only_firmware_paths_go_into_an_image(tmp_path):
    f = tmp_path / "x.mpy"
    f.write_bytes(b"M\x06")
    assert firmware.romfs_image([(str(f), "/lib/goclockfw/x.mpy")]).startswith(ROMFS_HEADER)
    with pytest.raises(GoclockError):
        firmware.romfs_image([(str(f), "/lib/goclockfw/../../boot.py")])
    with pytest.raises(GoclockError):
        firmware.romfs_image([(str(f), "/main.py")])
