#!/usr/bin/env python3
"""A LoRA trainer for small llama GGUF models on CPU, in PyTorch.

It stands in, on a machine without a GPU, for the GPU trainers of
docs/training.md (TRL, Unsloth, Axolotl, mlx-lm): it does what they do with a
prompt-completion export, on the base model's own GGUF file, and writes an
adapter that llama.cpp's server loads with --lora and Ollama with ADAPTER.

    python3 scripts/train_lora.py train --base BASE.gguf --data TOKENS --out ADAPTER.gguf
    python3 scripts/train_lora.py loss --base BASE.gguf --data TOKENS [--adapter ADAPTER.gguf]
    python3 scripts/train_lora.py logits --base BASE.gguf --ids 1,2,3 [--adapter ADAPTER.gguf]

TOKENS is what `pyharness tokenize` writes: train.jsonl (and valid.jsonl)
of {"ids": [...], "trained": [[start, end], ...]} rows. The forward pass is
llama.cpp's llama architecture read from the GGUF (RMS norm, RoPE on
adjacent pairs, grouped-query attention, SwiGLU); LoRA adds B·A·alpha/rank
to the attention and MLP projections and the output layer (a frozen output
drawn small cannot make any token likely, whatever the layers do); the loss
is the cross-entropy on the trained ids only (--unmasked: on every id after
the first), and AdamW steps on the LoRA weights alone. Only F32 models are
read. Needs PyTorch (Debian: apt-get install python3-torch).
"""

import argparse
import json
import math
import os
import struct
import sys
import time

import torch

GGUF_MAGIC = b"GGUF"
ALIGNMENT = 32

# GGUF metadata value types (gguf.md).
U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
_SCALAR = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f", BOOL: "<?", U64: "<Q", I64: "<q", F64: "<d"}

# The projections LoRA can adapt, by their GGUF names.
MODULES = ["attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down", "output"]


class GGUFError(Exception):
    pass


def _read_value(f, vtype, path):
    if vtype in _SCALAR:
        fmt = _SCALAR[vtype]
        return struct.unpack(fmt, f.read(struct.calcsize(fmt)))[0]
    if vtype == STRING:
        (n,) = struct.unpack("<Q", f.read(8))
        return f.read(n).decode("utf-8", errors="replace")
    if vtype == ARRAY:
        etype, n = struct.unpack("<IQ", f.read(12))
        if etype in _SCALAR:
            fmt = _SCALAR[etype]
            size = struct.calcsize(fmt)
            data = f.read(size * n)
            return [x[0] for x in struct.iter_unpack(fmt, data)]
        return [_read_value(f, etype, path) for _ in range(n)]
    raise GGUFError(f"{path}: unknown metadata value type {vtype}")


def read_gguf(path):
    """Returns (metadata dict, {name: tensor}) of an F32 GGUF file."""
    with open(path, "rb") as f:
        if f.read(4) != GGUF_MAGIC:
            raise GGUFError(f"{path}: not a GGUF file")
        (version,) = struct.unpack("<I", f.read(4))
        if version not in (2, 3):
            raise GGUFError(f"{path}: GGUF version {version} (2 and 3 are read)")
        n_tensors, n_kv = struct.unpack("<QQ", f.read(16))
        meta = {}
        for _ in range(n_kv):
            key = _read_value(f, STRING, path)
            (vtype,) = struct.unpack("<I", f.read(4))
            meta[key] = _read_value(f, vtype, path)
        infos = []
        for _ in range(n_tensors):
            name = _read_value(f, STRING, path)
            (nd,) = struct.unpack("<I", f.read(4))
            dims = struct.unpack(f"<{nd}Q", f.read(8 * nd))
            ttype, offset = struct.unpack("<IQ", f.read(12))
            if ttype != 0:
                raise GGUFError(f"{path}: tensor {name} has ggml type {ttype}; only F32 (0) models are read")
            infos.append((name, dims, offset))
        align = meta.get("general.alignment", ALIGNMENT)
        start = (f.tell() + align - 1) // align * align
        tensors = {}
        for name, dims, offset in infos:
            n = math.prod(dims)
            f.seek(start + offset)
            buf = bytearray(f.read(4 * n))
            if len(buf) != 4 * n:
                raise GGUFError(f"{path}: tensor {name} runs past the end of the file")
            t = torch.frombuffer(buf, dtype=torch.float32)
            # ggml's first dimension is the contiguous one: a [in, out]
            # weight is an out×in matrix, as torch.nn.Linear holds it.
            tensors[name] = t.reshape(tuple(reversed(dims))) if len(dims) > 1 else t
        return meta, tensors


def _write_value(f, vtype, v):
    if vtype in _SCALAR:
        f.write(struct.pack(_SCALAR[vtype], v))
    elif vtype == STRING:
        b = v.encode("utf-8")
        f.write(struct.pack("<Q", len(b)) + b)
    else:
        raise GGUFError(f"cannot write value type {vtype}")


def write_adapter(path, arch, alpha, weights):
    """Writes a LoRA adapter GGUF as llama.cpp reads it (llama-adapter.cpp):
    general.type adapter, adapter.type lora, adapter.lora.alpha, and for each
    adapted weight W (out×in) the tensors W.lora_a (rank×in, ggml dims
    [in, rank]) and W.lora_b (out×rank, ggml dims [rank, out])."""
    kv = [("general.architecture", STRING, arch), ("general.type", STRING, "adapter"),
          ("adapter.type", STRING, "lora"), ("adapter.lora.alpha", F32, float(alpha))]
    tensors = []
    for name in sorted(weights):
        a, b = weights[name]
        tensors.append((name + ".lora_a", a))
        tensors.append((name + ".lora_b", b))
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(GGUF_MAGIC + struct.pack("<IQQ", 3, len(tensors), len(kv)))
        for key, vtype, v in kv:
            _write_value(f, STRING, key)
            f.write(struct.pack("<I", vtype))
            _write_value(f, vtype, v)
        offset = 0
        blobs = []
        for name, t in tensors:
            t = t.detach().to(torch.float32).contiguous()
            _write_value(f, STRING, name)
            dims = list(reversed(t.shape))
            f.write(struct.pack("<I", len(dims)) + struct.pack(f"<{len(dims)}Q", *dims))
            f.write(struct.pack("<IQ", 0, offset))
            data = t.numpy().tobytes()
            blobs.append(data)
            offset += (len(data) + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
        f.write(b"\0" * (-f.tell() % ALIGNMENT))
        for data in blobs:
            f.write(data)
            f.write(b"\0" * (-len(data) % ALIGNMENT))
    os.replace(tmp, path)


class Llama:
    """llama.cpp's llama architecture over a GGUF's F32 tensors, with LoRA."""

    def __init__(self, meta, tensors, dtype=torch.float32):
        arch = meta.get("general.architecture")
        if arch != "llama":
            raise GGUFError(f"general.architecture is {arch!r}; this trainer reads llama models")
        self.arch = arch
        g = lambda k: meta[f"llama.{k}"]
        self.n_layer = g("block_count")
        self.n_embd = g("embedding_length")
        self.n_head = g("attention.head_count")
        self.n_kv = meta.get("llama.attention.head_count_kv", self.n_head)
        self.eps = g("attention.layer_norm_rms_epsilon")
        self.rope_base = meta.get("llama.rope.freq_base", 10000.0)
        self.head_dim = self.n_embd // self.n_head
        self.n_rot = meta.get("llama.rope.dimension_count", self.head_dim)
        self.w = {k: v.to(dtype) for k, v in tensors.items()}
        if "output.weight" not in self.w:
            self.w["output.weight"] = self.w["token_embd.weight"]
        self.lora = {}
        self.lora_scale = 1.0

    def add_lora(self, modules, rank, alpha, seed, dtype=torch.float32):
        """A (rank×in) drawn at std 1/sqrt(in), B (out×rank) zero: the
        adapted model starts as the base."""
        gen = torch.Generator().manual_seed(seed)
        self.lora_scale = alpha / rank
        for name in self.adaptable(modules):
            out, inp = self.w[name].shape
            a = (torch.randn(rank, inp, generator=gen, dtype=torch.float64) / math.sqrt(inp)).to(dtype)
            b = torch.zeros(out, rank, dtype=dtype)
            self.lora[name] = (a.requires_grad_(), b.requires_grad_())

    def load_lora(self, path, dtype=torch.float32):
        meta, tensors = read_gguf(path)
        if meta.get("general.type") != "adapter" or meta.get("adapter.type") != "lora":
            raise GGUFError(f"{path}: not a LoRA adapter (general.type {meta.get('general.type')!r})")
        alpha = meta.get("adapter.lora.alpha", 0.0)
        for name, a in tensors.items():
            if name.endswith(".lora_a"):
                w = name[: -len(".lora_a")]
                b = tensors[w + ".lora_b"]
                rank = b.shape[1]
                self.lora[w] = (a.to(dtype), b.to(dtype))
                self.lora_scale = alpha / rank if alpha else 1.0

    def adaptable(self, modules):
        names = []
        for m in modules:
            if m not in MODULES:
                raise ValueError(f"LoRA module {m!r}: the modules are {', '.join(MODULES)}")
        for i in range(self.n_layer):
            for m in modules:
                if m != "output":
                    names.append(f"blk.{i}.{m}.weight")
        if "output" in modules:
            names.append("output.weight")
        return names

    def params(self):
        return [p for ab in self.lora.values() for p in ab]

    def mm(self, name, x):
        y = x @ self.w[name].T
        if name in self.lora:
            a, b = self.lora[name]
            y = y + (x @ a.T) @ b.T * self.lora_scale
        return y

    def norm(self, x, name):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.w[name]

    def rope(self, x, pos):
        # llama.cpp's NORM rope: adjacent pairs (2i, 2i+1) rotated by
        # pos * base^(-2i/n_rot).
        n = self.n_rot
        i = torch.arange(0, n, 2, dtype=torch.float64)
        theta = pos[:, None].to(torch.float64) * self.rope_base ** (-i / n)
        cos, sin = theta.cos().to(x.dtype)[:, None, :], theta.sin().to(x.dtype)[:, None, :]
        r, rest = x[..., :n], x[..., n:]
        x0, x1 = r[..., 0::2], r[..., 1::2]
        out = torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1).flatten(-2)
        return torch.cat((out, rest), dim=-1)

    def hidden(self, ids, attention_at=None):
        """The final normed hidden states of a sequence of ids (T×n_embd).
        With attention_at, a position, each layer's attention weights from
        it (heads×T) are kept in self.attention."""
        ids = torch.as_tensor(ids, dtype=torch.long)
        t = ids.shape[0]
        pos = torch.arange(t)
        x = self.w["token_embd.weight"][ids]
        mask = torch.full((t, t), float("-inf"), dtype=x.dtype).triu(1)
        hd, rep = self.head_dim, self.n_head // self.n_kv
        for l in range(self.n_layer):
            p = f"blk.{l}."
            h = self.norm(x, p + "attn_norm.weight")
            q = self.rope(self.mm(p + "attn_q.weight", h).view(t, self.n_head, hd), pos)
            k = self.rope(self.mm(p + "attn_k.weight", h).view(t, self.n_kv, hd), pos)
            v = self.mm(p + "attn_v.weight", h).view(t, self.n_kv, hd)
            k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
            att = (torch.einsum("qhd,khd->hqk", q, k) / math.sqrt(hd) + mask).softmax(-1)
            if attention_at is not None:
                if l == 0:
                    self.attention = []
                self.attention.append(att[:, attention_at, :])
            o = torch.einsum("hqk,khd->qhd", att, v).reshape(t, self.n_embd)
            x = x + self.mm(p + "attn_output.weight", o)
            h = self.norm(x, p + "ffn_norm.weight")
            f = torch.nn.functional.silu(self.mm(p + "ffn_gate.weight", h)) * self.mm(p + "ffn_up.weight", h)
            x = x + self.mm(p + "ffn_down.weight", f)
        return self.norm(x, "output_norm.weight")

    def logits(self, h):
        return self.mm("output.weight", h)


def positions(row, unmasked):
    """The target positions of a row: each trained id, predicted from the
    position before it."""
    n = len(row["ids"])
    if unmasked:
        return list(range(1, n))
    return [i for s, e in row["trained"] for i in range(max(s, 1), e)]


def loss_at(model, row, targets, chunk=512, h=None, hits=None):
    """Mean cross-entropy of the ids at targets, and their count; h is the
    row's hidden states when they were computed already. hits, a list,
    gets whether each target is the most likely id there."""
    if not targets:
        return None, 0
    ids = torch.as_tensor(row["ids"], dtype=torch.long)
    if h is None:
        h = model.hidden(ids)
    tgt = torch.as_tensor(targets, dtype=torch.long)
    total = 0.0
    for i in range(0, len(targets), chunk):
        t = tgt[i:i + chunk]
        logits = model.logits(h[t - 1])
        total = total + torch.nn.functional.cross_entropy(logits, ids[t], reduction="sum")
        if hits is not None:
            hits.extend((logits.argmax(-1) == ids[t]).tolist())
    return total / len(targets), len(targets)



def finite_difference(model, row, targets, p, idx, eps):
    """The loss's derivative in one weight p[idx] by central differences,
    the weight put back as it was."""
    with torch.no_grad():
        old = p[idx].item()
        p[idx] = old + eps
        up, _ = loss_at(model, row, targets)
        p[idx] = old - eps
        down, _ = loss_at(model, row, targets)
        p[idx] = old
    return (float(up) - float(down)) / (2 * eps)

def read_rows(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                if not isinstance(r.get("ids"), list) or not isinstance(r.get("trained"), list):
                    raise ValueError('want {"ids": [...], "trained": [[start, end], ...]}')
            except ValueError as e:
                raise SystemExit(f"{path}:{n}: {e}")
            rows.append(r)
    return rows


def evaluate(model, rows, prompt_sample=0, seed=0):
    """Mean cross-entropy per token on the trained ids (completion) and on
    the other ids after the first (prompt), over all rows. With
    prompt_sample > 0 the prompt's loss is read at that many positions
    drawn with seed (the same for every call), not at all of them: each
    costs a product with the whole output matrix."""
    sums = {"completion": [0.0, 0], "prompt": [0.0, 0]}
    right, exact = 0, 0
    others = []
    for r in rows:
        trained = set(positions(r, False))
        others.append([i for i in range(1, len(r["ids"])) if i not in trained])
    total = sum(len(o) for o in others)
    if 0 < prompt_sample < total:
        gen = torch.Generator().manual_seed(seed)
        keep = set(torch.randperm(total, generator=gen)[:prompt_sample].tolist())
        k, picked = 0, []
        for o in others:
            picked.append([i for j, i in enumerate(o, k) if j in keep])
            k += len(o)
        others = picked
    with torch.no_grad():
        for r, other in zip(rows, others):
            trained = set(positions(r, False))
            h = model.hidden(r["ids"])
            for part, tg in (("completion", sorted(trained)), ("prompt", other)):
                hits = [] if part == "completion" else None
                l, n = loss_at(model, r, tg, h=h, hits=hits)
                if n:
                    sums[part][0] += float(l) * n
                    sums[part][1] += n
                if hits is not None:
                    right += sum(hits)
                    # Every trained id the most likely one: greedy decoding
                    # from the prompt writes the row's completion exactly.
                    exact += bool(hits) and all(hits)
    out = {k: (s / n if n else None) for k, (s, n) in sums.items()} | {k + "_tokens": n for k, (s, n) in sums.items()}
    out["completion_top1"] = right / sums["completion"][1] if sums["completion"][1] else None
    out["rows_exact"] = exact
    return out


def load(args):
    meta, tensors = read_gguf(args.base)
    m = Llama(meta, tensors)
    if getattr(args, "adapter", None):
        m.load_lora(args.adapter)
    return m


def cmd_train(args):
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    model = load(args)
    modules = args.modules.split(",")
    model.add_lora(modules, args.rank, args.alpha, args.seed)
    train = read_rows(os.path.join(args.data, "train.jsonl"))
    valid_path = os.path.join(args.data, "valid.jsonl")
    valid = read_rows(valid_path) if os.path.exists(valid_path) else []
    report = {"base": args.base, "rows": len(train), "valid_rows": len(valid), "masked": not args.unmasked,
              "lr": args.lr, "epochs": args.epochs, "rank": args.rank, "alpha": args.alpha, "modules": modules,
              "seed": args.seed, "prompt_sample": args.prompt_sample}
    ev = lambda rows: evaluate(model, rows, args.prompt_sample) if rows else None
    report["before"] = {"train": ev(train), "valid": ev(valid)}
    log = lambda s: print(s, file=sys.stderr, flush=True)
    log(f"before: train {report['before']['train']}")
    opt = torch.optim.AdamW(model.params(), lr=args.lr, weight_decay=args.weight_decay)
    gen = torch.Generator().manual_seed(args.seed)
    step, start = 0, time.time()
    for epoch in range(args.epochs):
        order = torch.randperm(len(train), generator=gen).tolist()
        run, runn = 0.0, 0
        for i in order:
            r = train[i]
            loss, n = loss_at(model, r, positions(r, args.unmasked))
            if n == 0:
                continue
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            run, runn = run + float(loss), runn + 1
            if step % 10 == 0:
                log(f"step {step}: loss {float(loss):.4f}, {time.time() - start:.0f} s")
        log(f"epoch {epoch + 1}: {step} steps, mean loss {run / max(runn, 1):.4f}, {time.time() - start:.0f} s")
    report["steps"] = step
    report["seconds"] = round(time.time() - start, 1)
    report["after"] = {"train": ev(train), "valid": ev(valid)}
    log(f"after: train {report['after']['train']}")
    write_adapter(args.out, model.arch, args.alpha, model.lora)
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
    json.dump(report, sys.stdout, indent=1)
    print()


def cmd_init(args):
    """An adapter with A and B both drawn at --std: a nonzero change of
    every adapted weight, for checking another program's forward or
    gradients against this one's."""
    model = load(args)
    model.add_lora(args.modules.split(","), args.rank, args.alpha, args.seed)
    g = torch.Generator().manual_seed(args.seed + 1)
    with torch.no_grad():
        for a, b in model.lora.values():
            a.copy_(torch.randn(a.shape, generator=g) * args.std)
            b.copy_(torch.randn(b.shape, generator=g) * args.std)
    write_adapter(args.out, model.arch, args.alpha, model.lora)


def cmd_loss(args):
    model = load(args)
    out = {}
    for split in ("train", "valid"):
        p = os.path.join(args.data, split + ".jsonl")
        if os.path.exists(p):
            out[split] = evaluate(model, read_rows(p), args.prompt_sample)
    json.dump(out, sys.stdout, indent=1)
    print()


def cmd_logits(args):
    """The logits after each id, as JSON: {"logits": [[...], ...]} or, with
    --top, the top ids and probabilities after the last id."""
    model = load(args)
    ids = [int(x) for x in args.ids.split(",")]
    with torch.no_grad():
        logits = model.logits(model.hidden(ids))
    if args.top:
        p = logits[-1].softmax(-1)
        v, i = p.topk(args.top)
        json.dump({"top": [[int(a), float(b)] for a, b in zip(i, v)]}, sys.stdout)
    else:
        json.dump({"logits": logits.tolist()}, sys.stdout)
    print()


def decision(model, rows):
    """How much the model's state where a row's completion starts (the
    position before its first trained id) differs from row to row, and
    where it looks: the pairwise cosine of those states, the share of
    their squared norm that varies between rows, and each layer's
    attention (mean over heads and rows) on the part of each row after
    the prefix all rows share — the task and what follows — against that
    part's share of the positions, which uniform attention would give."""
    states, looked, share = [], [], []
    prefix = len(os.path.commonprefix([r["ids"] for r in rows])) if len(rows) > 1 else 0
    with torch.no_grad():
        for r in rows:
            s = r["trained"][0][0]
            h = model.hidden(r["ids"][:s], attention_at=s - 1)
            states.append(h[s - 1])
            looked.append([float(a[:, prefix:].sum(-1).mean()) for a in model.attention])
            share.append((s - prefix) / s)
    h = torch.stack(states)
    n = len(rows)
    cos = torch.nn.functional.cosine_similarity(h[:, None], h[None], dim=-1)
    off = cos[~torch.eye(n, dtype=torch.bool)] if n > 1 else torch.ones(1)
    varying = (h - h.mean(0)).pow(2).sum(1).mean() / h.pow(2).sum(1).mean()
    return {
        "rows": n,
        "shared_prefix": prefix,
        "cosine_mean": float(off.mean()),
        "cosine_min": float(off.min()),
        "varying_share": float(varying),
        "attention_after_prefix": [sum(x[l] for x in looked) / n for l in range(model.n_layer)],
        "positions_after_prefix": sum(share) / n,
    }


def cmd_decision(args):
    model = load(args)
    json.dump(decision(model, read_rows(args.data)), sys.stdout, indent=1)
    print()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train", help="train a LoRA adapter")
    t.add_argument("--base", required=True, help="the base model, an F32 llama GGUF")
    t.add_argument("--data", required=True, help="a directory `pyharness tokenize` wrote")
    t.add_argument("--out", required=True, help="the adapter GGUF to write")
    t.add_argument("--report", help="also write the losses before and after, as JSON, here")
    t.add_argument("--unmasked", action="store_true", help="train every id, the prompt's too, not the trained spans alone")
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--epochs", type=int, default=3)
    t.add_argument("--rank", type=int, default=8)
    t.add_argument("--alpha", type=float, default=16)
    t.add_argument("--modules", default=",".join(MODULES), help="comma-separated: " + ", ".join(MODULES))
    t.add_argument("--weight-decay", type=float, default=0.0)
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--prompt-sample", type=int, default=4096, help="read the prompt's loss at this many positions (0: all)")
    t.add_argument("--threads", type=int, default=1, help="torch's threads (more than the free cores only spin)")
    t.set_defaults(fn=cmd_train)
    i = sub.add_parser("init", help="write an adapter drawn at random, B nonzero too")
    i.add_argument("--base", required=True)
    i.add_argument("--out", required=True)
    i.add_argument("--rank", type=int, default=4)
    i.add_argument("--alpha", type=float, default=8)
    i.add_argument("--std", type=float, default=0.05)
    i.add_argument("--modules", default=",".join(MODULES))
    i.add_argument("--seed", type=int, default=1)
    i.set_defaults(fn=cmd_init)
    l = sub.add_parser("loss", help="the loss on the trained and the other ids")
    l.add_argument("--base", required=True)
    l.add_argument("--data", required=True)
    l.add_argument("--adapter")
    l.add_argument("--prompt-sample", type=int, default=4096, help="read the prompt's loss at this many positions (0: all)")
    l.set_defaults(fn=cmd_loss)
    g = sub.add_parser("logits", help="the logits after each of a list of ids")
    g.add_argument("--base", required=True)
    g.add_argument("--ids", required=True, help="comma-separated token ids")
    g.add_argument("--adapter")
    g.add_argument("--top", type=int, default=0, help="print the top N next ids and probabilities instead")
    g.set_defaults(fn=cmd_logits)
    d = sub.add_parser("decision", help="how much the state where each row's completion starts varies between rows, and where it attends")
    d.add_argument("--base", required=True)
    d.add_argument("--data", required=True, help="a rows file `pyharness tokenize` wrote (train.jsonl)")
    d.add_argument("--adapter")
    d.set_defaults(fn=cmd_decision)
    args = ap.parse_args(argv)
    try:
        args.fn(args)
    except (GGUFError, OSError) as e:
        raise SystemExit(f"train_lora: {e}")


if __name__ == "__main__":
    main()
