"""What an annotation import stored and what it left out, as the command line prints it and the window shows it
(``annotations.imports.importing`` fills it)."""

from __future__ import annotations

from dataclasses import dataclass, field

PLURAL = {"box": "box(es)", "points": "points mark(s)"}   # the others: "<kind>(s)"


@dataclass
class AnnotationImportReport:
    """What an import stored and what it left out.

    ``matched``: media file name -> {"boxes", "tracks", "sources"} counts of what is stored; ``unmatched``: (what
    in the file, why no media was found); ``problems``: (where in the file, what was wrong and what was done:
    skipped, or kept otherwise) for single marks; ``already_present``: marks the project holds already
    (`present_marks`), not stored again; ``kinds``: the marks to store by kind.
    """

    format: str
    source: str
    files: list[str] = field(default_factory=list)
    matched: dict[str, dict[str, int]] = field(default_factory=dict)
    unmatched: list[tuple[str, str]] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    labels_created: list[str] = field(default_factory=list)
    marks: int = 0
    already_present: int = 0
    cancelled: bool = False
    kinds: dict[str, int] = field(default_factory=dict)   # the marks to store, by kind
    present_kinds: dict[str, int] = field(default_factory=dict)   # the (plain or keyframe) marks held already
    notes: list[str] = field(default_factory=list)   # what else the import does or did not (skeleton templates)

    def lines(self) -> list[str]:
        """The report as the command line prints it and the window shows it; marks are named by kind ("3
        polygon(s), 2 skeleton(s)"), "box(es)" only when all are boxes."""
        noun = "box(es)" if set(self.kinds) | set(self.present_kinds) <= {"box"} else "mark(s)"
        what = f"{self.marks} {noun}" + (f" ({_kinds(self.kinds)})" if noun != "box(es)" and self.kinds else "")
        out = [f"{self.format}: {what} from {len(self.files)} file(s) onto {len(self.matched)} media"]
        for name, c in sorted(self.matched.items()):
            out.append(f"  {name}: {c['boxes']} {noun}, {c['tracks']} track(s) (from {c['sources']} "
                       f"{'group' if c['sources'] == 1 else 'groups'} of the file)")
        if self.already_present:
            held = f" ({_kinds(self.present_kinds)})" if noun != "box(es)" and self.present_kinds else ""
            out.append(f"already in the project: {self.already_present} {noun}{held} (an earlier import of this "
                       "file?): not added again")
        if self.labels_created:
            out.append(f"labels created: {', '.join(self.labels_created)}")
        out += self.notes
        if self.unmatched:
            out.append(f"not matched to any media ({len(self.unmatched)}):")
            out += [f"  {what}: {why}" for what, why in self.unmatched[:50]]
            if len(self.unmatched) > 50:
                out.append(f"  ... and {len(self.unmatched) - 50} more")
        if self.problems:   # each says what was done: skipped, or kept otherwise (a COCO polygon kept as its box)
            out.append(f"not imported as written ({len(self.problems)}):")
            out += [f"  {where}: {why}" for where, why in self.problems[:50]]
            if len(self.problems) > 50:
                out.append(f"  ... and {len(self.problems) - 50} more")
        if self.cancelled:
            out.append("cancelled: nothing was stored")
        return out


def _kinds(counts: dict[str, int]) -> str:
    """"3 polygon(s), 2 skeleton(s)"."""
    return ", ".join(f"{n} {PLURAL.get(kind, kind + '(s)')}" for kind, n in sorted(counts.items()))
