"""Score kept transcriptions again (after a change to the comparison), without listening.

Run: python -m tools.voice.rescore LANG TUNE_OR_SCORE.json
"""

import json
import sys

from . import listen


def main(argv):
    lang, path = argv
    with open(path, encoding="utf-8") as f:
        kept = json.load(f)
    for name, entry in kept.items():
        results = entry["results"] if isinstance(entry, dict) else entry
        phrases = [r["phrase"] for r in results]
        again = listen.rescore(results, lang, phrases)
        s = listen.summary(again)
        c, e, n = s["all"]
        cc, _, cn = s["counts"]
        print(
            "%-36s closed %5.1f %% exact %5.1f %% | counts %d/%d"
            % (name, listen.pct(c, n), listen.pct(e, n), cc, cn)
        )
        for r in again:
            if not r["closed"]:
                print("    %s -> %r -> %s" % (r["phrase"], r["heard"], r["confused_with"]))


if __name__ == "__main__":
    main(sys.argv[1:])
