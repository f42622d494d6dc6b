"""pyharness tasks' Python side: mutation sites, fix hunks, and a pytest plugin.

As a script (run with the repository's interpreter):

    python pyharness_mine.py sites ROOT FILE...   # JSON list of single-site mutations
    python pyharness_mine.py hunks OLD NEW        # JSON list of FIND/REPLACE blocks turning OLD into NEW

As a pytest plugin (-p pyharness_mine, this file's directory on PYTHONPATH),
driven by environment variables:

    PYHARNESS_MINE_SELECT  a file of node ids or test files: run only those
    PYHARNESS_MINE_REPORT  write each test's outcome and message as JSON here
    PYHARNESS_MINE_COVER   write, per test, the functions of ROOT it ran
    PYHARNESS_MINE_ROOT    the repository root (for COVER)

Every edit replaces the source span of one syntax-tree node (ast positions),
so the rest of the file keeps its bytes.
"""

import ast
import json
import os
import re
import sys

# ---------------------------------------------------------------- mutations

COMPARE_FLIP = {
    ast.Eq: "!=", ast.NotEq: "==", ast.Lt: ">=", ast.GtE: "<", ast.Gt: "<=", ast.LtE: ">",
    ast.In: "not in", ast.NotIn: "in", ast.Is: "is not", ast.IsNot: "is",
}
COMPARE_RE = re.compile(rb"==|!=|<=|>=|<|>|\bnot\s+in\b|\bis\s+not\b|\bin\b|\bis\b")
ARITH_FLIP = {ast.Add: "-", ast.Sub: "+", ast.Mult: "/", ast.Div: "*", ast.FloorDiv: "*"}
ARITH_RE = re.compile(rb"//|\+|-|\*|/")
SIMPLE = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)


class Source:
    def __init__(self, data):
        self.data = data
        self.starts = [0]
        for i, b in enumerate(data):
            if b == 0x0A:
                self.starts.append(i + 1)

    def off(self, line, col):
        return self.starts[line - 1] + col

    def span(self, node):
        return self.off(node.lineno, node.col_offset), self.off(node.end_lineno, node.end_col_offset)

    def text(self, node):
        s, e = self.span(node)
        return self.data[s:e]

    def line_start(self, off):
        return self.data.rfind(b"\n", 0, off) + 1

    def line_end(self, off):
        i = self.data.find(b"\n", off)
        return len(self.data) if i < 0 else i + 1


def gap_edit(src, left, right, pattern, new):
    """The edit replacing the operator between two nodes, or None."""
    gs, ge = src.span(left)[1], src.span(right)[0]
    m = pattern.search(src.data, gs, ge)
    if not m or b"#" in src.data[gs:ge]:
        return None
    return (m.start(), m.end(), new.encode())


def whole_lines(src, node):
    """The node's line span when the statement has its lines to itself."""
    s, e = src.span(node)
    ls, le = src.line_start(s), src.line_end(e)
    rest = src.data[e:le].strip()
    if src.data[ls:s].strip() or (rest and not rest.startswith(b"#")):
        return None
    return ls, le, src.data[ls:s]


def mutations(src, fn, body_nodes, parent_body):
    """Yield (kind, line, [edits]) for the nodes of one function."""
    for node in body_nodes:
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            op = type(node.ops[0])
            e = gap_edit(src, node.left, node.comparators[0], COMPARE_RE, COMPARE_FLIP[op])
            if e:
                yield "flip-comparison", node.lineno, [e]
            if op in (ast.Lt, ast.Gt, ast.LtE, ast.GtE):
                ls, le = src.span(node.left)
                rs, re_ = src.span(node.comparators[0])
                yield "swap-operands", node.lineno, [(ls, le, src.data[rs:re_]), (rs, re_, src.data[ls:le])]
        elif isinstance(node, ast.BinOp) and type(node.op) in ARITH_FLIP:
            if isinstance(node.op, ast.Mult) and (isinstance(node.left, (ast.Constant, ast.List, ast.Tuple)) and not isinstance(getattr(node.left, "value", 0), (int, float))):
                continue  # sequence repetition: "ab" / 2 is a type error, not a bug
            e = gap_edit(src, node.left, node.right, ARITH_RE, ARITH_FLIP[type(node.op)])
            if e:
                yield "change-arithmetic", node.lineno, [e]
        elif isinstance(node, ast.BoolOp):
            new = "or" if isinstance(node.op, ast.And) else "and"
            edits = []
            for a, b in zip(node.values, node.values[1:]):
                e = gap_edit(src, a, b, re.compile(rb"\band\b|\bor\b"), new)
                if not e:
                    edits = []
                    break
                edits.append(e)
            if edits:
                yield "flip-boolean", node.lineno, edits
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = src.text(node.operand)
            if not isinstance(node.operand, SIMPLE):
                inner = b"(" + inner + b")"
            s, e = src.span(node)
            yield "drop-not", node.lineno, [(s, e, inner)]
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            s, e = src.span(node)
            yield "change-constant", node.lineno, [(s, e, str(not node.value).encode())]
        elif isinstance(node, ast.Constant) and type(node.value) is int and src.text(node).isdigit():
            s, e = src.span(node)
            v = node.value + 1 if node.value == 0 else node.value - 1
            yield "change-constant", node.lineno, [(s, e, str(v).encode())]
        elif isinstance(node, ast.If) and not isinstance(node.test, ast.UnaryOp):
            s, e = src.span(node.test)
            yield "invert-if", node.lineno, [(s, e, b"not (" + src.data[s:e] + b")")]
        elif isinstance(node, ast.Return) and node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
            s, e = src.span(node.value)
            yield "return-none", node.lineno, [(s, e, b"None")]
        # Removals: a whole statement, replaced by pass when it is alone.
        kind = None
        if isinstance(node, (ast.Assign, ast.AugAssign)) or (isinstance(node, ast.AnnAssign) and node.value is not None):
            kind = "remove-assignment"
        elif isinstance(node, ast.If):
            kind = "remove-conditional"
        elif isinstance(node, (ast.For, ast.While)):
            kind = "remove-loop"
        if kind:
            span = whole_lines(src, node)
            siblings = parent_body.get(id(node))
            if span and siblings is not None:
                ls, le, indent = span
                rep = b"" if len(siblings) > 1 else indent + b"pass\n"
                yield kind, node.lineno, [(ls, le, rep)]


def function_nodes(fn):
    """The nodes of a function's own body (not of the functions it defines)."""
    out, parents = [], {}
    stack = list(fn.body)
    for stmt_list in [fn.body]:
        for s in stmt_list:
            parents[id(s)] = stmt_list
    while stack:
        node = stack.pop(0)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        out.append(node)
        for field in ("body", "orelse", "finalbody"):
            lst = getattr(node, field, None)
            if isinstance(lst, list):
                for s in lst:
                    parents[id(s)] = lst
        if isinstance(node, ast.Try):
            for h in node.handlers:
                for s in h.body:
                    parents[id(s)] = h.body
        for child in ast.iter_child_nodes(node):
            stack.append(child)
    # A docstring is text, not code.
    if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant) and isinstance(fn.body[0].value.value, str):
        doc = fn.body[0].value
        out = [n for n in out if n is not doc]
    return out, parents


def functions(tree):
    """Yield (qualname, top-level name, first line, node) for every function."""
    def walk(node, prefix, top):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = prefix + child.name
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                yield q, top or child.name, first, child
                yield from walk(child, q + ".", top or child.name)
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, prefix + child.name + ".", top or child.name)
            elif not isinstance(child, ast.Lambda):
                yield from walk(child, prefix, top)
    yield from walk(tree, "", "")


def unique_block(data, start, end, other, ostart, oend):
    """Grow [start,end) of data and [ostart,oend) of other by whole lines
    until each block occurs once in its file and neither is empty."""
    for _ in range(40):
        a, b = data[start:end], other[ostart:oend]
        if a.strip() and b.strip() and data.count(a) == 1 and other.count(b) == 1:
            return a, b
        grew = False
        if start > 0:
            start = data.rfind(b"\n", 0, start - 1) + 1
            ostart = other.rfind(b"\n", 0, ostart - 1) + 1
            grew = True
        if end < len(data) and oend < len(other):
            i, j = data.find(b"\n", end), other.find(b"\n", oend)
            end = len(data) if i < 0 else i + 1
            oend = len(other) if j < 0 else j + 1
            grew = True
        if not grew:
            break
    return None


def sites(root, files):
    out = []
    for rel in files:
        try:
            with open(os.path.join(root, rel), "rb") as f:
                data = f.read()
            tree = ast.parse(data)
            data.decode("utf-8")
        except (SyntaxError, ValueError, OSError, UnicodeDecodeError):
            continue
        src = Source(data)
        for qual, top, first, fn in functions(tree):
            nodes, parents = function_nodes(fn)
            for kind, line, edits in mutations(src, fn, nodes, parents):
                edits.sort()
                if any(a[1] > b[0] for a, b in zip(edits, edits[1:])):
                    continue
                new = bytearray(data)
                for s, e, rep in reversed(edits):
                    new[s:e] = rep
                new = bytes(new)
                if new == data:
                    continue
                try:
                    compile(new, rel, "exec")
                except (SyntaxError, ValueError):
                    continue
                s, e = edits[0][0], edits[-1][1]
                ls, le = src.line_start(s), src.line_end(e)
                delta = sum(len(r) - (b - a) for a, b, r in edits)
                blocks = unique_block(new, ls, le + delta, data, ls, le)
                if blocks is None:
                    continue
                find, replace = blocks
                out.append({"file": rel, "function": qual, "top": top, "first_line": first,
                            "kind": kind, "line": line, "find": find.decode(), "replace": replace.decode()})
    return out


# ------------------------------------------------------------------- hunks

def hunks(old, new):
    """FIND/REPLACE blocks that turn old into new applied in order, or []
    when blocks cannot be made unique (the caller writes the file whole)."""
    import difflib
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    cur = old
    out = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(1):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        while True:
            find, rep = "".join(a[i1:i2]), "".join(b[j1:j2])
            if find.strip() and cur.count(find) == 1:
                break
            if i1 == 0 and i2 == len(a):
                return []
            if i1 > 0:
                i1, j1 = i1 - 1, j1 - 1
            if i2 < len(a):
                i2, j2 = i2 + 1, j2 + 1
        cur = cur.replace(find, rep, 1)
        out.append({"find": find, "replace": rep})
    return out if cur == new else []


# ------------------------------------------------------------ pytest plugin

_report = {"collect_errors": [], "tests": {}}
_cover = {}
_select = None


def _load_select():
    path = os.environ.get("PYHARNESS_MINE_SELECT")
    if not path:
        return None
    with open(path) as f:
        return {l.strip() for l in f if l.strip()}


def pytest_collection_modifyitems(session, config, items):
    want = _load_select()
    if want is None:
        return
    keep, drop = [], []
    for it in items:
        (keep if it.nodeid in want or it.nodeid.split("::")[0] in want else drop).append(it)
    items[:] = keep
    if drop:
        config.hook.pytest_deselected(items=drop)


def pytest_collectreport(report):
    if report.failed:
        _report["collect_errors"].append({"node": report.nodeid, "message": _short(report)})


def _short(report):
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    if crash is not None:
        return crash.message
    text = str(getattr(report, "longrepr", "") or "")
    lines = [l for l in text.splitlines() if l.startswith("E ")]
    if lines:
        return lines[-1][1:].strip()
    tail = text.strip().splitlines()
    return tail[-1] if tail else ""


def pytest_runtest_logreport(report):
    t = _report["tests"].setdefault(report.nodeid, {"outcome": "passed", "message": ""})
    if report.failed:
        if t["outcome"] == "passed":
            t["outcome"] = "failed" if report.when == "call" else "error"
            t["message"] = _short(report)
    elif report.skipped and report.when != "teardown" and t["outcome"] == "passed":
        t["outcome"] = "skipped"


def _rel(filename, root, cache={}):
    r = cache.get(filename)
    if r is None:
        a = os.path.abspath(filename)
        r = os.path.relpath(a, root) if a.startswith(root + os.sep) else ""
        cache[filename] = r
    return r


try:
    import pytest

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        root = os.environ.get("PYHARNESS_MINE_ROOT")
        if not os.environ.get("PYHARNESS_MINE_COVER") or not root:
            yield
            return
        root = os.path.abspath(root)
        seen = set()
        mon = getattr(sys, "monitoring", None)
        if mon is not None:
            tool = mon.COVERAGE_ID

            def start(code, offset):
                seen.add((code.co_filename, code.co_firstlineno))
                return mon.DISABLE

            mon.use_tool_id(tool, "pyharness-mine")
            mon.register_callback(tool, mon.events.PY_START, start)
            mon.set_events(tool, mon.events.PY_START)
            mon.restart_events()
            try:
                yield
            finally:
                mon.set_events(tool, 0)
                mon.free_tool_id(tool)
        else:
            def trace(frame, event, arg):
                if event == "call":
                    c = frame.f_code
                    seen.add((c.co_filename, c.co_firstlineno))
                return None

            old = sys.gettrace()
            sys.settrace(trace)
            try:
                yield
            finally:
                sys.settrace(old)
        funcs = set()
        for fname, line in seen:
            r = _rel(fname, root)
            if r:
                funcs.add("%s:%d" % (r, line))
        _cover[item.nodeid] = sorted(funcs)
except ImportError:  # the script's own commands need no pytest
    pass


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("PYHARNESS_MINE_REPORT")
    if path:
        with open(path, "w") as f:
            json.dump(_report, f)
    path = os.environ.get("PYHARNESS_MINE_COVER")
    if path:
        with open(path, "w") as f:
            json.dump(_cover, f)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "sites":
        json.dump(sites(sys.argv[2], sys.argv[3:]), sys.stdout)
    elif cmd == "hunks":
        with open(sys.argv[2], encoding="utf-8") as f:
            old = f.read()
        with open(sys.argv[3], encoding="utf-8") as f:
            new = f.read()
        json.dump(hunks(old, new), sys.stdout)
    else:
        sys.exit("unknown command " + cmd)
