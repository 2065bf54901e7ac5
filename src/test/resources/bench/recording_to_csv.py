#!/usr/bin/env python3
"""The peer of `racelab export --format csv`: a plain streaming converter of a RaceLab recording
(JSON lines) to the same CSV columns, line by line, with Python's json and csv modules. Used by
scripts/bench recordings as the baseline for CPU time and resident memory."""
import csv
import json
import sys

STATES_AND_KINDS = ("STATE", "ACTOR")


def main(source, target):
    with open(source, encoding="utf-8") as lines, open(target, "w", encoding="utf-8", newline="") as out:
        rows = csv.writer(out)
        rows.writerow(["run", "seq", "time_ms", "actor", "actor_name", "actor_kind", "kind", "subject",
                       "value", "state"])
        run, origin, actors = 0, None, {}
        for line in lines:
            item = json.loads(line)
            if isinstance(item, dict):
                if item.get("type") == "run":
                    run, origin, actors = item["run"], None, {}
                continue
            seq, nanos, actor, kind, value, subject = item
            if kind == "ACTOR":
                actors[actor] = (subject, value)
            elif origin is None:
                origin = nanos
            name, actor_kind = actors.get(actor, ("", ""))
            state = value if kind == "STATE" else ""
            number = 0 if kind in STATES_AND_KINDS else value
            ms = 0.0 if origin is None else max(0, nanos - origin) / 1e6
            rows.writerow([run, seq, "%.3f" % ms, actor, name, actor_kind, kind, subject or "", number, state])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
