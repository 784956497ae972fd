"""Write docs/rules.md from the rules' docstrings (the SARIF helpUri points into it).

Usage: python tools/write_rule_docs.py   (tests/test_rule_docs.py checks it is up to date)
"""

from __future__ import annotations

from pathlib import Path

from benchlint.registry import all_rules

OUT = Path(__file__).resolve().parent.parent / "docs" / "rules.md"


def render() -> str:
    parts = [
        "# benchlint rules",
        "",
        "Generated from each rule's docstring by `tools/write_rule_docs.py`.",
        "",
    ]
    for rule in all_rules():
        parts.append(
            f"| [{rule.id}](#{rule.id.lower()}-{rule.name}) | {rule.name} | {rule.severity.value} |"
        )
    parts.insert(4, "| ID | name | default severity |\n|---|---|---|")
    parts.append("")
    for rule in all_rules():
        body = rule.doc.replace("\n## ", "\n### ")
        parts += [
            f"## {rule.id} {rule.name}",
            "",
            f"Default severity: {rule.severity.value}.",
            "",
            body,
            "",
        ]
    return "\n".join(parts)


if __name__ == "__main__":
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(render())
    print(f"wrote {OUT}")
