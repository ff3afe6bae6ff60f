"""The docs cannot drift from the code: what they name exists, and the ranges they give are
the ones the clock enforces.

Every Markdown page a user or a maintainer reads (the README, docs/*.md, boards/README.md,
tools/rp2/README.md) is parsed (markdown-it, as a renderer reads it) and checked:

- every repository path in a link, in code, or in prose starting with a top-level folder
  (`firmware/goclockfw/core/ticks.py`, `tools/rp2/README.md`, `boards/*.json`) exists in
  the repository, and no link leaves it; a link's `#anchor` is a heading of its page;
  a bare `name.py` or `name.md` in code is a file somewhere in the repository; firmware
  paths may be given from the package (`core/ticks.py`);
- every dotted module of the project (`goclock.cli`, `goclockfw.core.timecontrol.parse`,
  `python -m tools.bench`) is a module, and what follows it a name defined there;
- every `goclock ...` command is one of the real argparse table's, with options that
  command takes; every `make ...` target is one of the Makefile's; a tool is run as a
  module (`python -m tools.rp2.build`), never by its path;
- the ranges docs/protocol.md gives are the clock's own: each bound is accepted by the
  real firmware behind the protocol, and one step past it refused.

`problems(root)` reads the pages under `root` (the repository, or a copy of its pages:
the planted drifts below) and checks them against the repository.
"""

import ast
import fnmatch
import functools
import glob
import importlib.util
import os
import re
import shlex
import shutil
import subprocess

import pytest
from markdown_it import MarkdownIt

from goclock.cli import build_parser

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["README.md", "boards/README.md", "tools/rp2/README.md"] + sorted(
    os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "docs", "*.md"))
)
# Top-level folders a path in prose or code starts from, and where shorter forms start.
ROOTS = ("firmware", "host", "tools", "tests", "boards", "docs", "sounds", ".ci", "web")
BUILT = ("web/dist",)  # made by a build (`make web-build`), never in the repository
SHORT = {
    "goclockfw": "firmware",  # goclockfw/core/ticks.py
    "goclock": "host",  # goclock/cli/commands.py
}
PACKAGE_DIRS = ("firmware/goclockfw", "host/goclock")  # core/ticks.py, cli/logs.py
# Made by the tools, never committed: `./sim-flash`, `build/rp2/...`.
GENERATED = {"build", "sim-flash", ".venv", ".venv-voice", "node_modules", "__pycache__"}
# MicroPython's own files, named in tools/rp2/README.md: not ours to have.
MICROPYTHON = {"tools/manifestfile.py", "_boot.py", "mpy-tool.py"}
MODULE = re.compile(r"^(?:goclockfw|goclock|tools)(?:\.[A-Za-z_]\w*)+$")
PATH_CHARS = re.compile(r"^[\w.+-]+(?:/[\w.*+-]*)*$")
TRAILING = ".,;:)]!?'\""
SHELL_STOP = {"|", "||", "&&", ";", ">", ">>", "<", "2>&1", "&"}


# ----- reading the pages --------------------------------------------------------------


class Page:
    """One Markdown page: its code (spans, blocks), its links, its prose."""

    def __init__(self, root, rel):
        self.rel = rel
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            self.text = f.read()
        self.spans, self.blocks, self.links, self.prose, self.headings = [], [], [], [], []
        tokens = MarkdownIt("commonmark").enable("table").parse(self.text)
        for i, tok in enumerate(tokens):
            if tok.type in ("fence", "code_block"):
                self.blocks.append(tok.content)
            if tok.type == "heading_open":
                self.headings.append(tokens[i + 1].content)
            for child in tok.children or ():
                if child.type == "code_inline":
                    self.spans.append(child.content)
                elif child.type in ("link_open", "image"):
                    self.links.append(child.attrs.get("href") or child.attrs.get("src"))
                elif child.type == "text":
                    self.prose.append(child.content)

    def code_lines(self):
        """Each code span, and each line of each code block (comments dropped)."""
        out = list(self.spans)
        for block in self.blocks:
            for line in block.splitlines():
                out.append(line.split("  #")[0].strip())
        return out


def slug(heading):
    """The anchor a renderer gives a heading (GitHub's rule: lower case, no punctuation)."""
    text = re.sub(r"[`*_]", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


# ----- paths ------------------------------------------------------------------------------


def _repo_files():
    """The names of the repository's files (for a bare `session.py`)."""
    return {os.path.basename(p) for p in _tracked()}


@functools.lru_cache(maxsize=None)
def _tracked():
    """The repository's files and folders: what git tracks or would (not what it ignores), or
    every file outside the generated folders when this is no git checkout."""
    try:
        listed = (
            subprocess.run(
                ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                cwd=REPO,
                capture_output=True,
                check=True,
            )
            .stdout.decode("utf-8")
            .split("\0")
        )
    except (OSError, subprocess.CalledProcessError):
        listed = []
        for folder, dirs, files in os.walk(REPO):
            dirs[:] = [d for d in dirs if d not in GENERATED and d != ".git"]
            listed += [os.path.relpath(os.path.join(folder, f), REPO) for f in files]
    out = set()
    for path in filter(None, listed):
        parts = path.split("/")
        out.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return frozenset(out)


def _exists(rel):
    rel = os.path.normpath(rel).replace(os.sep, "/")
    if any(c in rel for c in "*?"):
        return any(fnmatch.fnmatchcase(p, rel) for p in _tracked())
    return rel in _tracked()


def path_problem(token, page):
    """A path-like token that names nothing in the repository: the problem, else None."""
    token = token.rstrip(TRAILING).lstrip("(")
    if not PATH_CHARS.match(token) or "/" not in token or token.startswith("/"):
        return None
    if token in MICROPYTHON:
        return None
    first = token.split("/")[0]
    if first in (".", ".."):  # from the page's folder
        rel = os.path.normpath(os.path.join(os.path.dirname(page.rel), token))
        if rel.startswith(".."):
            return "%s: %s is outside the repository" % (page.rel, token)
        if rel.split(os.sep)[0] in GENERATED:
            return None
        candidates = [rel]
    elif token.startswith(BUILT):
        return None
    elif first in ROOTS:
        candidates = [token]
    elif first in SHORT:
        candidates = [SHORT[first] + "/" + token]
    elif any(os.path.isdir(os.path.join(REPO, d, first)) for d in PACKAGE_DIRS):
        candidates = [d + "/" + token for d in PACKAGE_DIRS]
    else:
        return None  # not a repository path (a notation like cn 2h/5, a board path)
    if any(_exists(c) for c in candidates):
        return None
    return "%s: %s does not exist" % (page.rel, token)


def link_problems(page):
    out = []
    for href in page.links:
        if not href or re.match(r"^[a-z]+:", href):
            continue  # a URL: http:, https:, mailto:
        target, _, anchor = href.partition("#")
        base = os.path.dirname(os.path.join(REPO, page.rel))
        path = os.path.realpath(os.path.join(base, target)) if target else None
        if path and not path.startswith(REPO + os.sep):
            out.append("%s: link %s leaves the repository" % (page.rel, href))
            continue
        if path and not _exists(os.path.relpath(path, REPO)):
            out.append("%s: link %s: no such file" % (page.rel, href))
            continue
        if anchor and (path is None or path.endswith(".md")):
            rel = os.path.relpath(path, REPO) if path else page.rel
            headings = page.headings if path is None else Page(REPO, rel).headings
            if anchor not in [slug(h) for h in headings]:
                out.append("%s: link %s: no heading #%s in %s" % (page.rel, href, anchor, rel))
    return out


def file_name_problem(token, page, files):
    """A bare `name.py` / `name.md` that is no file of the repository."""
    token = token.rstrip(TRAILING)
    if re.match(r"^[\w-]+\.(py|md)$", token) and token not in files | MICROPYTHON:
        return "%s: %s is no file of the repository" % (page.rel, token)
    return None


# ----- modules ----------------------------------------------------------------------------


def _defined(tree):
    """Names defined at the top of a module (or a class) body."""
    names = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        names[n.id] = None
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                names[(a.asname or a.name).split(".")[0]] = None
        elif isinstance(node, (ast.If, ast.Try)):
            names.update(_defined(ast.Module(body=node.body, type_ignores=[])))
    return names


def module_problem(dotted, page):
    """`goclock.x.y` (a module, then names defined in it): the problem, else None."""
    parts = dotted.split(".")
    spec = None
    for n in range(len(parts), 0, -1):
        try:
            spec = importlib.util.find_spec(".".join(parts[:n]))
        except (ImportError, ValueError):
            spec = None
        if spec is not None:
            break
    if spec is None:
        return "%s: no module %s" % (page.rel, dotted)
    rest = parts[n:]
    if not rest:
        return None
    if not spec.origin or not spec.origin.endswith(".py"):
        return "%s: %s: %s is not in %s" % (page.rel, dotted, rest[0], ".".join(parts[:n]))
    with open(spec.origin, encoding="utf-8") as f:
        scope = ast.parse(f.read())
    for name in rest:
        names = _defined(scope)
        if name not in names:
            return "%s: %s: %s is not defined in %s" % (page.rel, dotted, name, spec.name)
        if not isinstance(names[name], ast.ClassDef):
            break  # a function or a value: what follows is its own business
        scope = names[name]
    return None


# ----- commands ---------------------------------------------------------------------------


def _words(line):
    try:
        return shlex.split(line, comments=True)
    except ValueError:  # an apostrophe in a comment, a quote left open
        return line.split()


def _subparsers(parser):
    for action in parser._actions:
        if action.__class__.__name__ == "_SubParsersAction":
            return action
    return None


def goclock_problem(words, page, top):
    """`goclock ...`: the commands are in the table, the options those commands take."""
    parser, path = top, ["goclock"]
    i = 1
    while i < len(words):
        word = words[i].strip("[](){}")
        i += 1
        if not word or word in SHELL_STOP or word.startswith(("<", "$")):
            break
        if word in ("...", "…") or word.isupper():
            break  # a placeholder: COMMAND, PATH
        if word.startswith("-") and not re.match(r"^-\d", word):
            flag = word.split("=")[0]
            action = parser._option_string_actions.get(flag) or top._option_string_actions.get(flag)
            if action is None:
                return "%s: `%s` takes no option %s" % (page.rel, " ".join(path), flag)
            if action.nargs != 0 and "=" not in word:
                i += 1  # its value
            continue
        sub = _subparsers(parser)
        if sub is None:
            continue  # a value of a leaf command
        for alternative in word.split("|"):
            if alternative not in sub.choices:
                return "%s: `%s` has no command %r" % (page.rel, " ".join(path), alternative)
        parser = sub.choices[word.split("|")[0]]
        path.append(word)
    return None


def script_problem(path, page):
    """`python tools/x/y.py`: the tools are a package, run as modules (`python -m tools.x.y`)."""
    if path.startswith("tools/") and path.endswith(".py"):
        module = path[:-3].replace("/", ".").replace(".__main__", "")
        return "%s: `python %s`: run it as `python -m %s`" % (page.rel, path, module)
    return None


def make_targets():
    targets = set()
    with open(os.path.join(REPO, "Makefile"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^([^\t#=:][^=:]*):(?!=)", line)
            if m and "$" not in m.group(1):
                targets.update(m.group(1).split())
    return targets


def make_problem(words, page, targets):
    for word in words[1:]:
        if word in SHELL_STOP:
            break
        if "=" in word or word.startswith("-"):
            continue  # a variable (BOARD=pico), an option
        if word not in targets:
            return "%s: `make %s`: no such target in the Makefile" % (page.rel, word)
    return None


# ----- all of it --------------------------------------------------------------------------


def _commands(line):
    """The commands in a line of code: [words] each, split at ; && |."""
    words = _words(line)
    out, cur = [], []
    for w in words:
        if w in SHELL_STOP:
            out.append(cur)
            cur = []
        else:
            cur.append(w)
    out.append(cur)
    for cmd in out:
        while cmd and (cmd[0] == "$" or re.match(r"^\w+=", cmd[0])):
            cmd = cmd[1:]  # a prompt, an environment variable
        if cmd:
            yield cmd


def problems(root=REPO):
    top = build_parser()
    targets = make_targets()
    files = _repo_files()
    out = []
    for rel in PAGES:
        page = Page(root, rel)
        out += link_problems(page)
        for code in page.spans + page.blocks:  # comments too: they name files
            for token in re.split(r"[\s,=]+", code):
                out.append(path_problem(token, page))
                out.append(file_name_problem(token, page, files))
                token = token.rstrip(TRAILING).strip("`'\"(")
                if MODULE.match(token):
                    out.append(module_problem(token, page))
        for line in page.code_lines():
            for words in _commands(line):
                name = os.path.basename(words[0])
                if name == "goclock":
                    out.append(goclock_problem(words, page, top))
                elif name == "make":
                    out.append(make_problem(words, page, targets))
                elif name.startswith("python") and words[1:2] == ["-m"] and len(words) > 2:
                    if MODULE.match(words[2]):
                        out.append(module_problem(words[2], page))
                elif name.startswith("python") and len(words) > 1:
                    out.append(script_problem(words[1], page))
        for text in page.prose:
            for token in text.split():
                if token.lstrip("(").split("/")[0] in ROOTS:
                    out.append(path_problem(token, page))
    return sorted(set(p for p in out if p))


def test_every_path_module_and_command_the_docs_name_exists():
    assert problems() == []


# ----- the protocol's ranges ----------------------------------------------------------------


def _device():
    from protocol_support import ask, make_device

    app, proto, _sent = make_device()
    return lambda req: ask(proto, dict(req, id=1))


def _with_tc(ask, tc):
    assert ask({"cmd": "config.set", "config": {"time_control": tc}})["ok"]
    assert ask({"cmd": "reset"})["ok"]
    return ask


def _time_set(field, tc, tc_at_zero=None):
    """Does `time.set` take `field` = v (a time control of that kind on the clock; at 0 or
    below, `tc_at_zero` when given)?"""

    def accepts(v):
        ask = _with_tc(_device(), tc_at_zero if tc_at_zero and v <= 0 else tc)
        return ask({"cmd": "time.set", "side": "black", field: v})["ok"]

    return accepts


def _config(field):
    return lambda v: _device()({"cmd": "config.set", "config": {field: v}})["ok"]


def _presets(count=1, name_len=1):
    tc = {"type": "sudden_death", "main": 60}
    presets = [{"name": "p%d" % i, "time_control": tc} for i in range(count)]
    if presets:
        presets[0]["name"] = "x" * name_len
    return _device()({"cmd": "presets.set", "presets": presets})["ok"]


def _logs_length(v):
    reply = _device()({"cmd": "logs.get", "game": 1, "length": v})
    return reply["ok"] or "length" not in reply["error"]  # no game 1: the length was taken


SD = {"type": "sudden_death", "main": 60}
DELAY = {"type": "delay", "main": 60, "delay": 5}  # main 0 is a side living on its delay
BYO = {"type": "byoyomi", "main": 60, "periods": 5, "period": 30}
CAN = {"type": "canadian", "main": 60, "moves": 10, "period": 300}
# (what, where in docs/protocol.md: a pattern whose groups are a range's low and high, the
# step one past each bound, does the clock take the value)
RANGES = [
    (
        "time.set main (s)",
        r"`time\.set`.*?`main` (\d+)–(\d+)",
        0.001,
        _time_set("main", SD, DELAY),
    ),
    ("time.set periods", r"`time\.set`.*?`periods` (\d+)–(\d+)", 1, _time_set("periods", BYO)),
    ("time.set moves", r"`time\.set`.*?`moves` (\d+)–(\d+)", 1, _time_set("moves", CAN)),
    ("logs.get length", r"`length` \((\d+)–(\d+), default", 1, _logs_length),
    ("presets.set count", r"`presets\.set`.*?at most (\d+);", 1, lambda v: _presets(count=v)),
    (
        "preset names",
        r"`presets\.set`.*?names (\d+)–(\d+) characters",
        1,
        lambda v: _presets(name_len=v),
    ),
    ("volume", r"\| `volume` \| (\d+)–(\d+) \|", 1, _config("volume")),
    ("voice name", r"\| `voice` \| the voice pack's name: (\d+)–(\d+) of", 1, None),
    ("battery_low_mv", r"\| `battery_low_mv` \| (\d+)–(\d+);", 1, _config("battery_low_mv")),
]


def documented_ranges(root=REPO):
    """{what: (low, high)} as docs/protocol.md gives them; a range not found is an error."""
    with open(os.path.join(root, "docs", "protocol.md"), encoding="utf-8") as f:
        text = f.read()
    out = {}
    for what, pattern, _step, _accepts in RANGES:
        m = re.search(pattern, text)
        assert m, "docs/protocol.md no longer gives the range of %s as %r" % (what, pattern)
        values = [int(g) for g in m.groups()]
        out[what] = (values[0], values[-1]) if len(values) > 1 else (None, values[0])
    return out


def _voice_name(n):
    return _config("voice")("v" * n) if n > 0 else _config("voice")("")


def range_problems(root=REPO):
    out = []
    ranges = documented_ranges(root)
    for what, _pattern, step, accepts in RANGES:
        accepts = accepts or _voice_name
        low, high = ranges[what]
        checks = [(high, True), (high + step, False)]
        if low is not None:
            checks += [(low, True), (low - step, False)]
        for value, expected in checks:
            if accepts(value) != expected:
                out.append(
                    "docs/protocol.md: %s %s..%s, but the clock %s %s"
                    % (what, low, high, "takes" if not expected else "refuses", value)
                )
    return out


def test_the_protocols_documented_ranges_are_the_clocks():
    assert range_problems() == []


def test_the_documented_limits_are_the_firmwares_constants():
    """The limits the ranges above cannot probe one by one: read from the firmware."""
    from goclock.link import client
    from goclockfw.protocol import commands, strictjson

    with open(os.path.join(REPO, "docs", "protocol.md"), encoding="utf-8") as f:
        text = f.read()
    assert re.search(r"at most (\d+) bytes including the newline", text).group(1) == str(
        commands.MAX_LINE
    )
    assert set(re.findall(r"line over (\d+) bytes", text)) == {str(commands.MAX_LINE)}
    assert re.search(r"more than (\d+) characters", text).group(1) == str(strictjson.MAX_NUMBER)
    assert re.search(r"nesting deeper than (\d+)", text).group(1) == str(strictjson.MAX_DEPTH)
    assert re.search(r"`protocol` \((\d+)\)", text).group(1) == str(commands.PROTOCOL_VERSION)
    newest = re.search(r"^\| version \| changes \|\n\|---\|---\|\n\| (\d+) \|", text, re.M)
    assert newest.group(1) == str(commands.PROTOCOL_VERSION) == str(client.PROTOCOL)


# ----- the check fails on a planted drift ---------------------------------------------------


def _copy_of_the_pages(tmp_path):
    for rel in PAGES:
        os.makedirs(tmp_path / os.path.dirname(rel), exist_ok=True)
        shutil.copy(os.path.join(REPO, rel), tmp_path / rel)
    return tmp_path


def _plant(root, rel, old, new):
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, "the plant's anchor %r is no longer in %s" % (old, rel)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


PLANTS = [
    # (page, text there, drifted text, what the check must say)
    ("README.md", "`make sim`", "`make simulate`", "no such target"),
    ("README.md", "`make sim`", "`goclock logs frobnicate`", "has no command 'frobnicate'"),
    ("README.md", "`make sim`", "`goclock logs pull --everything`", "takes no option"),
    ("README.md", "`make sim`", "`goclock.records.nowhere`", "nowhere is not defined"),
    ("README.md", "`make sim`", "`goclock.unixport.NoSuchThing`", "is not defined"),
    ("README.md", "`make sim`", "`python -m tools.benchmarks`", "benchmarks is not defined"),
    ("docs/protocol.md", "[storage.md](storage.md)", "[storage.md](store.md)", "no such file"),
    ("docs/protocol.md", "(#events)", "(#the-events)", "no heading"),
    ("docs/architecture.md", "[protocol.md](protocol.md)", "[x](../../outside.md)", "leaves"),
    ("docs/protocol.md", "`firmware/goclockfw/protocol/commands.py`", "`firmware/cmds.py`", ""),
    ("README.md", "`make sim`", "`simulator.py`", "is no file"),
    ("README.md", "`make sim`", "`core/clock.py`", "does not exist"),
    ("README.md", "`make sim`", "`python tools/bench/heap.py`", "python -m tools.bench.heap"),
    ("boards/README.md", "tools/rp2/README.md", "tools/rp3/README.md", "rp3/README.md does"),
]


@pytest.mark.parametrize("rel,old,new,said", PLANTS)
def test_a_planted_drift_is_found(tmp_path, rel, old, new, said):
    root = _copy_of_the_pages(tmp_path)
    assert problems(str(root)) == []  # the copy as it is: nothing to say
    _plant(root, rel, old, new)
    found = problems(str(root))
    assert len(found) == 1 and rel in found[0] and said in found[0], found


def test_a_planted_range_drift_is_found(tmp_path):
    root = _copy_of_the_pages(tmp_path)
    assert range_problems(str(root)) == []
    high = documented_ranges(str(root))["time.set main (s)"][1]
    _plant(root, "docs/protocol.md", "`main` 0–%d" % high, "`main` 0–360000")
    assert range_problems(str(root)) == [
        "docs/protocol.md: time.set main (s) 0..360000, but the clock refuses 360000"
    ]
