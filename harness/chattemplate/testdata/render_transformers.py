"""Render chat templates the way transformers' apply_chat_template does.

Reads one JSON document on stdin:

    {"now": "2026-12-01T09:30:00",
     "jobs": [{"template": "<jinja source>",
               "context": {"messages": [...], "tools": [...] or null,
                           "add_generation_prompt": false,
                           "bos_token": "<s>", "eos_token": "</s>"}}]}

and prints a JSON list with one object per job: {"text": "..."} or
{"error": "..."}. The environment is the one transformers builds in
_compile_jinja_template: an ImmutableSandboxedEnvironment with
trim_blocks and lstrip_blocks, the loopcontrols extension, a
{% generation %} tag that renders its body, tojson with ensure_ascii=False,
raise_exception and strftime_now. strftime_now reads "now" so that Go and
Python render the same date. Standard library and jinja2 only (Debian's
python3-jinja2 is the engine transformers uses).
"""

import json
import sys
from datetime import datetime

import jinja2
import jinja2.ext
import jinja2.nodes
from jinja2.exceptions import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment


class Generation(jinja2.ext.Extension):
    # transformers' AssistantTracker: outside assistant-mask tracking the
    # {% generation %} block renders its body unchanged.
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.Scope(body).set_lineno(lineno)


def raise_exception(message):
    raise TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def main():
    doc = json.load(sys.stdin)
    now = datetime.fromisoformat(doc.get("now") or "2026-12-01T09:30:00")
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[Generation, jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: now.strftime(fmt)
    compiled = {}
    out = []
    for job in doc["jobs"]:
        src = job["template"]
        try:
            if src not in compiled:
                compiled[src] = env.from_string(src)
            ctx = dict(job["context"])
            ctx.setdefault("tools", None)
            ctx.setdefault("documents", None)
            out.append({"text": compiled[src].render(**ctx)})
        except Exception as e:  # the template's own error, as a trainer would see it
            out.append({"error": "%s: %s" % (type(e).__name__, e)})
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
