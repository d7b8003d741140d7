"""Transformation plans as Python objects: the JSON that strata::
TransformationPlan::toJSON and TransformReport::toJSON write
(include/strata/Patterns/Plan.h), as attributes. Planning and applying are
the C++ pipeline's (strata.get_transformation_plan and
strata.apply_transformation_plan call it); this module only converts."""


class PlannedMatch:
    """One match of one pattern: `apply` is the switch; `node` the ONNX node
    of its root op, `nodes` every node it claims, `phase` its pattern's
    phase and `reason` why the planner switched it off (or None)."""

    __slots__ = ("node", "pattern", "phase", "apply", "nodes", "reason")

    def __init__(self, node, pattern, entry):
        self.node = node
        self.pattern = pattern
        self.phase = entry.get("phase")
        self.apply = bool(entry["apply"])
        self.nodes = list(entry.get("nodes", []))
        self.reason = entry.get("reason")

    def __repr__(self):
        return "PlannedMatch(%r, %r, apply=%r)" % (self.node, self.pattern,
                                                   self.apply)


class TransformationPlan:
    """Every match of a backend's patterns on a model:
    `plan.matches[node][pattern]` is a PlannedMatch whose `apply` can be
    switched; `plan.patterns` lists the patterns ({name, phase, priority})
    in the order they are tried. strata.apply_transformation_plan(plan)
    applies the matches left on; strata.compile(model, plan=plan) compiles
    with them."""

    def __init__(self, plan_json, model, arguments):
        self.patterns = list(plan_json.get("patterns", []))
        self.matches = {
            node: {pattern: PlannedMatch(node, pattern, entry)
                   for pattern, entry in by_pattern.items()}
            for node, by_pattern in plan_json.get("matches", {}).items()}
        # What the plan was made from, to apply it to the same model.
        self.model = model
        self.arguments = dict(arguments)

    def __iter__(self):
        """Every match, node by node."""
        for by_pattern in self.matches.values():
            yield from by_pattern.values()

    def __len__(self):
        return sum(len(by_pattern) for by_pattern in self.matches.values())

    def to_json(self):
        """The plan as the C++ side reads it (TransformationPlan::
        updateFromJSON, strata-compile --plan-in)."""
        matches = {}
        for node, by_pattern in self.matches.items():
            matches[node] = {}
            for pattern, match in by_pattern.items():
                entry = {"apply": bool(match.apply), "phase": match.phase,
                         "nodes": list(match.nodes)}
                if match.reason is not None:
                    entry["reason"] = match.reason
                matches[node][pattern] = entry
        return {"patterns": list(self.patterns), "matches": matches}

    def __repr__(self):
        on = sum(1 for match in self if match.apply)
        return "TransformationPlan(%d matches, %d to apply)" % (len(self), on)


class TransformResult:
    """What applying a plan did: `report` is the transform report as a dict
    ({"applied_count", "skipped_count", "patterns": [{name, phase, applied,
    skipped}], "skips", "matches"}), `mlir` the transformed hl module as
    MLIR text; compile() compiles the model with the same plan."""

    def __init__(self, report, mlir, plan):
        self.report = report
        self.mlir = mlir
        self.plan = plan

    def applied(self, pattern):
        """How many times `pattern` was applied (0 when never)."""
        for entry in self.report.get("patterns", []):
            if entry["name"] == pattern:
                return entry["applied"]
        return 0

    def compile(self, **options):
        """The program of the transformed model (strata.compile's options;
        the plan's own are the defaults)."""
        from . import compile as compile_model

        arguments = {**self.plan.arguments, **options}
        arguments.setdefault("plan", self.plan)
        return compile_model(self.plan.model, **arguments)

    def __repr__(self):
        return "TransformResult(%d applied, %d skipped)" % (
            self.report.get("applied_count", 0),
            self.report.get("skipped_count", 0))
