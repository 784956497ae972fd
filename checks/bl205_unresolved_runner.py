"""A master-config `runner:` label that leads to no launcher.

## What it does
Reports a master-config entry whose `runner:` leads to no launcher, in three degrees:
- a label whose runner names lead to no launch script (an error): the workflow runs the
  launcher the runner's name picks (`bash ./runners/launch_${RUNNER_NAME%%_*}.sh`), so a runner
  `gb300-cw_0` needs `runners/launch_gb300-cw.sh`, and the job fails at once on that runner;
- a label the runners file does not define and that no launcher is named after (a warning): the
  sweep's runner-node filter finds no runner for it, and nothing in the repository says which
  launcher would run it (a cluster's label, `cluster:mi325x-tw`, whose cluster names a launcher
  too: the message says so, and benchlint checks its entries through that launcher, as the
  runners named `mi325x-tw_*` would run them);
- a label the runners file does not define but that names a launcher (`gb300-nv` and
  `runners/launch_gb300-nv.sh`; a note): the sweep passes the label to `runs-on` as it is, so
  the job still runs where GitHub routes the label, but the runner-node filter cannot select it.
A `runner:` that is a runner's own name listed in the runners file (`mi355x-amd_0`) is fine.

## Why is this bad?
The sweep schedules the entry, a runner picks it up, and the job dies before it starts, or the
entry silently never runs because the runner-node filter finds no node for an unknown label.

## Example
```yaml path=configs/nvidia-master.yaml
dsr1-fp8-gb300-dynamo-trt:
  runner: gb300-nv
  multinode: true
```
```yaml path=configs/runners.yaml
labels:
  cluster:gb300-nv: [gb300-nv_0]
```

## Use instead
```yaml path=configs/nvidia-master.yaml
dsr1-fp8-gb300-dynamo-trt:
  runner: cluster:gb300-nv
  multinode: true
```
```yaml path=configs/runners.yaml
labels:
  cluster:gb300-nv: [gb300-nv_0]
```
```bash path=runners/launch_gb300-nv.sh
srtctl apply -f "$CONFIG_FILE"
```

## Exceptions
Nothing is reported when the repository has no runners file (`layout.runners-file`), or one
that cannot be parsed (BL001 says where): its labels are not known.
"""

from __future__ import annotations

from collections.abc import Iterator

from benchlint.context import Context
from benchlint.finding import Finding, Location, Severity
from benchlint.layout import launcher_candidates
from benchlint.lazyre import lazy_compile
from benchlint.registry import rule
from benchlint.wiring import Wiring


@rule("BL205", "unresolved-runner", Severity.ERROR, tags=("wiring",), precision="medium")
def check(ctx: Context) -> Iterator[Finding]:
    wiring = ctx.wiring
    if not wiring.has_runners_file:
        return
    runners_file = ctx.ws.layout.runners_file
    for entry in wiring.entries:
        if entry.runner is None or entry.runner_location is None:
            continue
        label = entry.runner
        if label not in wiring.labels and label not in wiring.listed_runners:
            launcher = wiring.launcher_path(label)
            guessed = wiring.runner_names(label)
            named = wiring.launcher_path(guessed[0]) if guessed else None
            # (a launcher made for the name: not a misspelling of another label's; h80 W5)
            hint = _hint(wiring, label, close=launcher is None and named is None)
            if launcher is not None:  # GitHub routes by the label; the name picks the launcher
                yield Finding(
                    "BL205",
                    f"runner label '{label}' of {entry.name} is not in {runners_file}{hint}: "
                    f"the job still runs where GitHub routes the label, through {launcher}, but "
                    "the sweep's runner-node filter cannot select its runners",
                    entry.runner_location,
                    subject=label,
                    severity=Severity.NOTE,
                )
                continue
            # (`cluster:mi325x-tw`: the runners named after the cluster, as the wiring routes it)
            unknown = (
                f"no runner is listed for it, though {named} would run runners named "
                f"{guessed[0]}_* "
                "(benchlint checks the entry's routes through it)"
                if named is not None
                else "no launcher is named after it"
            )
            # (`h200-dgxc` where `cluster:h200-dgxc` lists runners whose launcher exists:
            # those may carry the label, which nothing here states; h61 W5)
            kin = _kin_launchers(wiring, label) if named is None else ""
            yield Finding(
                "BL205",
                f"runner label '{label}' of {entry.name} is not defined in {runners_file}"
                f"{hint} and {unknown}{kin}: the sweep's runner-node filter finds no runner for "
                "it, and the launcher the job runs depends on the name of whichever runner "
                "GitHub gives the label, which nothing here states",
                entry.runner_location,
                subject=label,
                severity=Severity.WARNING,
            )
            continue
        missing = [n for n in wiring.runner_names(label) if wiring.launcher_path(n) is None]
        if not missing:
            continue
        # a runner's own name (`runs-on` takes it as it is) is listed under some label
        listed_under = (
            label
            if label in wiring.labels
            else next(k for k, names in wiring.labels.items() if label in names)
        )
        template = ctx.ws.layout.launcher_templates[0]
        scripts = sorted({launcher_candidates(template, n) for n in missing})
        yield Finding(
            "BL205",
            f"runner label '{label}' of {entry.name} lists {', '.join(missing)}, but "
            f"{' and '.join(scripts)} {'does' if len(scripts) == 1 else 'do'} not exist: a job "
            f"that runner picks up fails at `bash ./{template}`",
            entry.runner_location,
            related=(
                Location(
                    runners_file,
                    wiring.label_locations[listed_under].span,
                    f"label {listed_under}",
                ),
            ),
            subject=label + ":" + ",".join(missing),
        )


_MACHINE = lazy_compile(r"[a-z]*\d+[a-z]*")


def _kin_launchers(wiring: Wiring, label: str) -> str:
    """Where a label of the runners file ends with this one (`cluster:h200-dgxc`), the
    launchers its runners' names pick, as the message says them ("" where none exists)."""
    for key, names in wiring.labels.items():
        if not key.endswith(":" + label):
            continue
        launchers = sorted({p for n in names if (p := wiring.launcher_path(n)) is not None})
        if launchers:
            shown = ", ".join(launchers[:2]) + (" and more" if len(launchers) > 2 else "")
            return (
                f" (the runners '{key}' lists run {shown}, if GitHub gives the label one of them)"
            )
    return ""


def _hint(wiring: Wiring, label: str, close: bool = True) -> str:
    """What the label may have meant: a cluster-prefixed label of that name, the labels that
    list runners named after it (a sub-fleet: `b200-dgxc_0` under `b200`), or (`close`) a
    close name of the same machine."""
    prefixed = [k for k in wiring.labels if k.endswith(":" + label)]
    if prefixed:
        return f" (did you mean '{prefixed[0]}'?)"
    listing = [
        k for k, names in wiring.labels.items() if any(n.startswith(label + "_") for n in names)
    ]
    if listing:
        more = f" and {len(listing) - 1} more" if len(listing) > 1 else ""
        return f" (its runners {label}_* are listed under '{listing[0]}'{more})"
    if not close:
        return ""
    import difflib  # (only for a finding)

    # (a label's words with a number name its hardware, `mi300x`, `h200`, `b200`: a name with
    # other such words is another machine, however close the spelling)
    machine = _MACHINE.findall(label.lower())
    same = [k for k in wiring.labels if _MACHINE.findall(k.lower()) == machine]
    matches = difflib.get_close_matches(label, same, n=1, cutoff=0.75)
    return f" (did you mean '{matches[0]}'?)" if matches else ""
