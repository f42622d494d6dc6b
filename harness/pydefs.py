"""List the definitions of Python sources with the ast module.

Reads one JSON array of source strings on stdin and writes one JSON array
with an object per source, in order:

  {"defs": [{"kind": k, "name": n, "line": l, "depth": d}, ...],
   "names": [name, ...]}
  {"error": "SyntaxError: invalid syntax (line 3)"}

kind is "def" or "class"; depth counts the functions and classes around a
definition (0: the module's own). names are the module's own names: its
functions and classes and the targets of its assignments, found also under
if, try, with, for, while and match at module level (if TYPE_CHECKING:).
Imports are not names here: the harness asks what a module defines.
"""

import ast
import json
import sys

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
TYPE_ALIAS = getattr(ast, "TypeAlias", None)


def targets(node, names):
    if isinstance(node, ast.Name):
        names.append(node.id)
    elif isinstance(node, (ast.Tuple, ast.List)):
        for elt in node.elts:
            targets(elt, names)
    elif isinstance(node, ast.Starred):
        targets(node.value, names)


def walk(body, depth, defs, names):
    # names is None inside a function or class: their assignments are not
    # the module's.
    for node in body:
        if isinstance(node, DEFS):
            kind = "class" if isinstance(node, ast.ClassDef) else "def"
            defs.append({"kind": kind, "name": node.name, "line": node.lineno, "depth": depth})
            if names is not None:
                names.append(node.name)
            walk(node.body, depth + 1, defs, None)
            continue
        if names is not None:
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    targets(t, names)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets(node.target, names)
            elif TYPE_ALIAS is not None and isinstance(node, TYPE_ALIAS):
                targets(node.name, names)
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, field, None)
            if not isinstance(children, list):
                continue
            for child in children:
                if isinstance(child, ast.stmt):
                    walk([child], depth, defs, names)
                else:  # an except handler or a match case
                    walk(getattr(child, "body", []), depth, defs, names)


def describe(source):
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return {"error": "%s: %s (line %s)" % (type(e).__name__, e.msg, e.lineno)}
    except (ValueError, RecursionError, MemoryError) as e:
        return {"error": "%s: %s" % (type(e).__name__, e)}
    defs, names = [], []
    try:
        walk(tree.body, 0, defs, names)
    except RecursionError as e:
        return {"error": "RecursionError: %s" % e}
    return {"defs": defs, "names": names}


def main():
    # Bytes in, ASCII out: the locale's encoding plays no part.
    sources = json.loads(sys.stdin.buffer.read().decode("utf-8", "replace"))
    json.dump([describe(s) for s in sources], sys.stdout)


main()
