#!/usr/bin/env python3
"""Check a pyharness JSONL export against the rules the trainers document.

    python3 scripts/validate_sft.py DIR...          # SFT exports (--format jsonl), either layout
    python3 scripts/validate_sft.py --dpo DIR...    # preference exports (--format dpo)
    python3 scripts/validate_sft.py --tool-calls DIR  # an export with --keep-tool-calls
    python3 scripts/validate_sft.py --assistant-only DIR  # for a trainer of every assistant message

The layout is read from the first row, as mlx-lm reads it: prompt and
completion (TRL's conversational prompt-completion, the default), or
messages (with a 0/1 weight on every assistant message).

Standard library only, so it runs wherever the trainers' Python does, with
nothing installed. Every rule names the trainer's source file that sets it
(docs/export.md lists them); a broken rule is printed as
FILE:LINE: RULE: what is wrong, and the exit status is 1. Exit 0 means every
row of every split passed and the counts match the dataset card.
"""

import argparse
import json
import os
import re
import sys

# Each rule: (id, what it demands, where the trainers document it).
RULES = {
    "json-object": (
        "each line is one JSON object",
        "JSON Lines as every trainer reads it: mlx_lm/tuner/datasets.py, "
        "TRL dataset formats doc",
    ),
    "one-layout": (
        "every row has the first row's layout: prompt and completion, or messages "
        "(and tools with --keep-tool-calls), nothing else",
        "mlx_lm/tuner/datasets.py picks the format from the first row's keys "
        "(prompt+completion, then messages, then text) and applies it to every row; "
        "trl/trainer/sft_trainer.py reads messages, or prompt and completion",
    ),
    "messages-list": (
        '"messages" (or "prompt") is a non-empty list of messages',
        "trl/trainer/sft_trainer.py (conversational format)",
    ),
    "completion-one": (
        '"completion" is a list of exactly one assistant message: the draft to learn',
        "TRL dataset formats doc (conversational prompt-completion), which "
        "trl/trainer/sft_trainer.py trains on the completion alone",
    ),
    "role-content": (
        "each message has string role and content, and only the other keys "
        "trainers read: reasoning_content (a string), weight (messages layout), "
        "tool_calls and tool_call_id (--keep-tool-calls)",
        "axolotl/prompt_strategies/chat_template.py (field_thinking "
        "reasoning_content, message_field_training); TRL dataset formats doc "
        "(tool calling)",
    ),
    "trained-last": (
        "in the messages layout every assistant message has weight 0 or 1, and "
        "exactly the last one has weight 1: the earlier drafts of the context "
        "(refused ones among them) are never trained",
        "axolotl/prompt_strategies/chat_template.py message_field_training "
        "(a falsy value leaves the turn untrained)",
    ),
    "one-assistant": (
        "with --assistant-only, every row has exactly one assistant message, "
        "the last: a trainer that trains every assistant message trains the "
        "draft alone (export --layout assistant-only)",
        "TRL SFTConfig assistant_only_loss (the template's generation spans); "
        "Unsloth train_on_responses_only; QVAC Fabric llama-finetune-lora "
        "--assistant-loss-only; torchtune masking_strategy train_on_assistant",
    ),
    "known-role": (
        "roles are system, user, assistant (or tool)",
        "LLaMA-Factory data/README.md tags (role_tag/user_tag/assistant_tag/"
        "system_tag); torchtune/datasets/_chat.py openai style",
    ),
    "string-content": (
        "content is a string, never null",
        "torchtune/datasets/_chat.py (null content breaks it)",
    ),
    "system-first": (
        "the first message is the system prompt",
        "LLaMA-Factory src/llamafactory/data/converter.py (system_tag, system "
        "only first)",
    ),
    "alternating": (
        "after the system prompt, user (or tool) and assistant alternate, user first",
        "LLaMA-Factory src/llamafactory/data/converter.py skips rows that do "
        "not alternate, with only a warning",
    ),
    "last-assistant": (
        "the last message is the assistant turn to learn (the prompt ends with "
        "a user or tool message)",
        "mlx_lm/tuner/datasets.py (--mask-prompt trains the last message); "
        "LLaMA-Factory mask_history",
    ),
    "tool-calls": (
        "a tool call has an id of exactly nine letters and digits, type "
        "function, a name and arguments as a JSON object; a tool message has "
        "the tool_call_id of the call it answers",
        "Mistral chat templates (nine-character ids); Hugging Face chat "
        "templates iterate over arguments (arguments|items); TRL dataset "
        "formats doc (tool calling)",
    ),
    "tools-column": (
        "tools, when present, is a list of function tools, each with a name "
        "and a parameters object whose required, if any, is a list",
        "mlx_lm/tuner/datasets.py passes tools to the template (an array, not "
        "a string); axolotl chat_template.py _get_tools wants list[dict]",
    ),
    "valid-split": (
        "valid.jsonl exists and holds at least one row",
        "mlx_lm/tuner/datasets.py loads train.jsonl and valid.jsonl from --data DIR",
    ),
    "card-counts": (
        "each split's rows equal num_examples in README.md",
        "Hugging Face dataset card YAML (configs, dataset_info.splits) that "
        "drives load_dataset",
    ),
    "meta-rows": (
        "meta.jsonl has one line per data row, in order (split, row)",
        "pyharness docs/export.md: provenance kept out of the training rows",
    ),
    "dpo-shape": (
        "prompt is a message list; chosen and rejected are one assistant message "
        "each, different from each other",
        "TRL DPOTrainer conversational preference format (trl/trainer/dpo_trainer.py)",
    ),
}

SPLIT_FILES = {"train": "train.jsonl", "validation": "valid.jsonl", "test": "test.jsonl"}
MAX_REPORTED = 50


CALL_ID = re.compile(r"^[A-Za-z0-9]{9}$")
LAYOUTS = {
    "prompt-completion": {"prompt", "completion"},
    "messages": {"messages"},
}


def layout_of(row):
    """The layout mlx-lm would read a row as, or None."""
    if "prompt" in row and "completion" in row:
        return "prompt-completion"
    if "messages" in row:
        return "messages"
    return None


class Checker:
    def __init__(self, tool_calls, assistant_only=False):
        self.tool_calls = tool_calls
        self.assistant_only = assistant_only
        self.problems = []
        self.layout = None

    def fail(self, where, rule, msg):
        self.problems.append("%s: %s: %s (%s)" % (where, rule, msg, RULES[rule][1]))

    def message(self, where, i, m, weighted=False):
        if not isinstance(m, dict):
            self.fail(where, "role-content", "message %d is not an object" % i)
            return None
        keys = set(m)
        allowed = {"role", "content", "reasoning_content"}
        if weighted:
            allowed.add("weight")
        if self.tool_calls:
            allowed |= {"tool_calls", "tool_call_id"}
        if not {"role", "content"} <= keys or not keys <= allowed:
            self.fail(where, "role-content", "message %d has keys %s" % (i, sorted(keys)))
        if "reasoning_content" in m and not isinstance(m["reasoning_content"], str):
            self.fail(where, "role-content", "message %d reasoning_content is not a string" % i)
        if "tool_calls" in m:
            self.calls(where, i, m["tool_calls"])
        role = m.get("role")
        if role not in ("system", "user", "assistant", "tool"):
            self.fail(where, "known-role", "message %d has role %r" % (i, role))
        if not isinstance(m.get("content"), str):
            self.fail(where, "string-content", "message %d content is %s" % (i, type(m.get("content")).__name__))
        return role

    def calls(self, where, i, calls):
        if not isinstance(calls, list) or not calls:
            self.fail(where, "tool-calls", "message %d tool_calls is not a non-empty list" % i)
            return
        for c in calls:
            fn = c.get("function") if isinstance(c, dict) else None
            if not isinstance(fn, dict) or c.get("type") != "function" or not isinstance(fn.get("name"), str):
                self.fail(where, "tool-calls", "message %d has a call that is not a function call: %r" % (i, c))
                continue
            if not isinstance(fn.get("arguments"), dict):
                self.fail(where, "tool-calls", "message %d: arguments of %s are %s, not an object" % (
                    i, fn["name"], type(fn.get("arguments")).__name__))
            if not isinstance(c.get("id"), str) or not CALL_ID.match(c["id"]):
                self.fail(where, "tool-calls", "message %d: call id %r is not nine letters and digits" % (i, c.get("id")))

    def conversation(self, where, msgs, want_last_assistant=True, weighted=False):
        """Check a list of messages; return their roles, or None."""
        if not isinstance(msgs, list) or not msgs:
            self.fail(where, "messages-list", "not a non-empty list")
            return None
        roles = [self.message(where, i, m, weighted) for i, m in enumerate(msgs)]
        if roles[0] != "system":
            self.fail(where, "system-first", "first role is %r" % roles[0])
        rest = roles[1:] if roles[0] == "system" else roles
        for i, role in enumerate(rest):
            user_turn = i % 2 == 0
            if user_turn and role not in ("user", "tool") or not user_turn and role != "assistant":
                self.fail(where, "alternating", "message %d is %r where %s was due" % (
                    i + (len(roles) - len(rest)), role, "user" if user_turn else "assistant"))
                break
        if want_last_assistant and roles[-1] != "assistant":
            self.fail(where, "last-assistant", "last role is %r" % roles[-1])
        if not want_last_assistant and roles[-1] not in ("user", "tool"):
            self.fail(where, "last-assistant", "the prompt ends with a %r message" % roles[-1])
        last_call = None
        for i, m in enumerate(msgs):
            if not isinstance(m, dict):
                continue
            if m.get("tool_calls"):
                first = m["tool_calls"][0]
                last_call = first.get("id") if isinstance(first, dict) else None
            if m.get("role") == "tool" and self.tool_calls and (last_call is None or m.get("tool_call_id") != last_call):
                self.fail(where, "tool-calls", "message %d answers call %r, the call before it is %r" % (
                    i, m.get("tool_call_id"), last_call))
        return roles

    def tools(self, where, row):
        if "tools" not in row:
            return
        tools = row["tools"]
        if not isinstance(tools, list):
            self.fail(where, "tools-column", "tools is %s, not a list" % type(tools).__name__)
            return
        for t in tools:
            fn = t.get("function") if isinstance(t, dict) else None
            if not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not isinstance(fn.get("parameters"), dict):
                self.fail(where, "tools-column", "not a function tool with a name and parameters: %r" % (t,))
            elif not isinstance(fn["parameters"].get("required", []), list):
                self.fail(where, "tools-column", "%s: parameters.required is not a list" % fn["name"])

    def sft_row(self, where, row):
        layout = layout_of(row)
        if self.layout is None:
            self.layout = layout
        keys = set(row)
        want = LAYOUTS.get(self.layout, set())
        if self.tool_calls:
            keys.discard("tools")
        if layout != self.layout or keys != want:
            self.fail(where, "one-layout", "top-level keys are %s; the first row's layout is %s" % (
                sorted(row), self.layout))
            return
        self.tools(where, row)
        if self.assistant_only:
            self.one_assistant(where, row)
        if layout == "messages":
            msgs = row["messages"]
            roles = self.conversation(where, msgs, weighted=True)
            if roles:
                self.weights(where, msgs, roles)
            return
        self.conversation(where, row["prompt"], want_last_assistant=False)
        completion = row["completion"]
        if not isinstance(completion, list) or len(completion) != 1:
            self.fail(where, "completion-one", "completion is not a list of one message")
            return
        if self.message(where, 0, completion[0]) != "assistant":
            self.fail(where, "completion-one", "the completion is not an assistant message")

    def one_assistant(self, where, row):
        msgs = row.get("messages")
        if msgs is None:
            msgs = list(row.get("prompt") or []) + list(row.get("completion") or [])
        if not isinstance(msgs, list):
            return
        at = [i for i, m in enumerate(msgs) if isinstance(m, dict) and m.get("role") == "assistant"]
        if at != [len(msgs) - 1]:
            self.fail(where, "one-assistant", "assistant messages at %s of %d: a trainer of every assistant "
                      "message would train %d" % (at, len(msgs), len(at)))

    def weights(self, where, msgs, roles):
        last = max(i for i, r in enumerate(roles) if r == "assistant") if "assistant" in roles else -1
        for i, (m, role) in enumerate(zip(msgs, roles)):
            if role != "assistant" or not isinstance(m, dict):
                continue
            w = m.get("weight")
            if w not in (0, 1) or isinstance(w, bool):
                self.fail(where, "trained-last", "assistant message %d has weight %r, want 0 or 1" % (i, w))
            elif (w == 1) != (i == last):
                self.fail(where, "trained-last", "assistant message %d has weight %d; only the last (%d) is trained" % (i, w, last))

    def dpo_row(self, where, row):
        if set(row) != {"prompt", "chosen", "rejected"}:
            self.fail(where, "dpo-shape", "top-level keys are %s" % sorted(row))
            return
        prompt = row["prompt"]
        if isinstance(prompt, list) and prompt and isinstance(prompt[-1], dict) and prompt[-1].get("role") == "assistant":
            self.fail(where, "dpo-shape", "the prompt ends with an assistant message")
        self.conversation(where, prompt, want_last_assistant=False)
        for side in ("chosen", "rejected"):
            v = row[side]
            if not isinstance(v, list) or len(v) != 1:
                self.fail(where, "dpo-shape", "%s is not a list of one message" % side)
                continue
            if self.message(where, 0, v[0]) != "assistant":
                self.fail(where, "dpo-shape", "%s is not an assistant message" % side)
        if row["chosen"] == row["rejected"]:
            self.fail(where, "dpo-shape", "chosen and rejected are the same")


def read_jsonl(path, checker):
    rows = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if not line.strip():
                checker.fail("%s:%d" % (path, no), "json-object", "blank line")
                continue
            try:
                row = json.loads(line)
            except ValueError as e:
                checker.fail("%s:%d" % (path, no), "json-object", str(e))
                continue
            if not isinstance(row, dict):
                checker.fail("%s:%d" % (path, no), "json-object", "not an object")
                continue
            rows.append((no, row))
    return rows


def card_counts(path):
    """num_examples per split from the card's YAML front matter."""
    counts = {}
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.match(r"---\n(.*?)\n---\n", text, re.S)
    if not m:
        return None
    in_info, name = False, None
    for line in m.group(1).splitlines():
        if re.match(r"^\S", line):
            in_info = line.startswith("dataset_info:")
            continue
        if not in_info:
            continue
        nm = re.match(r"^\s*-\s+name:\s*(\S+)\s*$", line)
        if nm:
            name = nm.group(1).strip("'\"")
            continue
        ne = re.match(r"^\s*num_examples:\s*(\d+)\s*$", line)
        if ne and name:
            counts[name] = int(ne.group(1))
    return counts


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", metavar="DIR")
    ap.add_argument("--dpo", action="store_true", help="preference pairs (export --format dpo)")
    ap.add_argument("--tool-calls", action="store_true",
                    help="allow tool_calls, tool_call_id and the tools column (export --keep-tool-calls)")
    ap.add_argument("--assistant-only", action="store_true",
                    help="every row's one assistant message is the last, for a trainer of every assistant message "
                         "(export --layout assistant-only)")
    args = ap.parse_args(argv)
    status = 0
    for d in args.dirs:
        status |= check_dir(d, args.dpo, args.tool_calls, args.assistant_only)
    return status


def check_dir(directory, dpo, tool_calls, assistant_only=False):
    """Check one export directory; print its verdict; return the exit status."""
    ck = Checker(tool_calls, assistant_only)
    counts = {}
    for split, name in SPLIT_FILES.items():
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            if split != "test":
                where = path
                ck.fail(where, "valid-split" if split == "validation" else "json-object", "missing")
            continue
        rows = read_jsonl(path, ck)
        counts[split] = len(rows)
        for no, row in rows:
            where = "%s:%d" % (path, no)
            if dpo:
                ck.dpo_row(where, row)
            else:
                ck.sft_row(where, row)
    if counts.get("validation", 0) == 0 and os.path.exists(os.path.join(directory, "valid.jsonl")):
        ck.fail(os.path.join(directory, "valid.jsonl"), "valid-split", "no rows")

    card = os.path.join(directory, "README.md")
    if not os.path.exists(card):
        ck.fail(card, "card-counts", "no dataset card")
    else:
        declared = card_counts(card)
        if declared is None:
            ck.fail(card, "card-counts", "no YAML front matter")
        elif declared != counts:
            ck.fail(card, "card-counts", "card declares %s, files hold %s" % (
                json.dumps(declared, sort_keys=True), json.dumps(counts, sort_keys=True)))

    meta = os.path.join(directory, "meta.jsonl")
    if os.path.exists(meta):
        lines = read_jsonl(meta, ck)
        want = [(s, r) for s in SPLIT_FILES for r in range(counts.get(s, 0))]
        got = [(m.get("split"), m.get("row")) for _, m in lines]
        if got != want:
            ck.fail(meta, "meta-rows", "%d metadata lines for %d data rows, or out of order" % (len(got), len(want)))
    else:
        ck.fail(meta, "meta-rows", "missing")

    if ck.problems:
        for p in ck.problems[:MAX_REPORTED]:
            print(p)
        if len(ck.problems) > MAX_REPORTED:
            print("... and %d more" % (len(ck.problems) - MAX_REPORTED))
        print("FAIL: %d problem(s) in %s" % (len(ck.problems), directory))
        return 1
    kind = "preference" if dpo else "SFT"
    layout = "" if dpo else "%s layout, " % ck.layout
    print("ok: %s export %s: %s%s; %d rules checked" % (
        kind, directory, layout, ", ".join("%s %d rows" % (s, n) for s, n in counts.items()), len(RULES)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
