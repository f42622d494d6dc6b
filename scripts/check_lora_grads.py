#!/usr/bin/env python3
"""Check a llama.cpp-style LoRA trainer's gradients from outside: one step of
its AdamW against the gradients of the same loss computed here.

    python3 scripts/check_lora_grads.py --finetune PATH/llama-finetune-lora \\
        --base BASE.gguf --server http://127.0.0.1:8080 --ctx 64 --work DIR

It writes a starting adapter (every LoRA tensor drawn nonzero, so that both
A and B have gradients), has the trainer take exactly one step from it on one
window of plain text (QVAC Fabric's llama-finetune-lora without
--assistant-loss-only: windows of --ctx tokens at a stride of half that, the
first window skipped and the last 5% kept for validation, so three windows
give one step, on the second), and reads the adapter it writes. The first
AdamW step moves each weight by about -lr * sign(gradient), so the sign of
each change is the sign the trainer's gradient had. The same window's loss
(mean cross-entropy over its --ctx positions) is differentiated here with
train_lora.py's forward in float64, by autograd for every weight and by
central finite differences for a sample, and the signs are compared tensor
by tensor. The server (built from the same tree) only tokenizes the text, so
that the ids are the trainer's own.
"""

import argparse
import json
import os
import subprocess
import sys
import urllib.request

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_lora  # noqa: E402

TEXT = ("The harness reads a file, runs the tests and writes a patch. "
        "Each turn is one action, and the harness answers with its result. ")


def tokenize(server, text):
    req = urllib.request.Request(server.rstrip("/") + "/tokenize", data=json.dumps({"content": text, "add_special": True}).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.load(r)["tokens"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--finetune", required=True, help="the trainer's binary (llama-finetune-lora)")
    ap.add_argument("--base", required=True, help="an F32 llama GGUF")
    ap.add_argument("--server", required=True, help="a llama-server of the same build serving BASE, to tokenize")
    ap.add_argument("--ctx", type=int, default=64)
    ap.add_argument("--rank", type=int, default=4)
    ap.add_argument("--alpha", type=float, default=8)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--std", type=float, default=0.05, help="std of the starting adapter's A and B")
    ap.add_argument("--sample", type=int, default=16, help="weights per tensor checked by finite differences")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)

    meta, tensors = train_lora.read_gguf(args.base)
    model = train_lora.Llama(meta, tensors, dtype=torch.float64)
    model.add_lora(train_lora.MODULES, args.rank, args.alpha, args.seed, dtype=torch.float64)
    g = torch.Generator().manual_seed(args.seed + 1)
    with torch.no_grad():
        for a, b in model.lora.values():
            a.copy_(torch.randn(a.shape, generator=g, dtype=torch.float64) * args.std)
            b.copy_(torch.randn(b.shape, generator=g, dtype=torch.float64) * args.std)
    start = os.path.join(args.work, "start.gguf")
    train_lora.write_adapter(start, "llama", args.alpha, {k: (a.float(), b.float()) for k, (a, b) in model.lora.items()})
    # What the trainer reads is the float32 file: start from exactly that.
    model.lora = {}
    model.load_lora(start, dtype=torch.float64)
    for a, b in model.lora.values():
        a.requires_grad_()
        b.requires_grad_()

    # Three windows of ctx tokens at stride ctx/2: the text repeated until
    # the tokens number ctx + 1 + 3*stride, and cut there.
    stride = args.ctx // 2
    want = args.ctx + 1 + 3 * stride
    text = TEXT
    while len(tokenize(args.server, text)) < want + 8:
        text += TEXT
    ids = tokenize(args.server, text)
    # Cut the text where its tokens reach the count: cut by tokens, then
    # check the trainer will see the same ids.
    words = text.split(" ")
    while len(words) > 1 and len(tokenize(args.server, " ".join(words[:-1]))) >= want:
        words = words[:-1]
    text = " ".join(words)
    ids = tokenize(args.server, text)
    ndata = (len(ids) - args.ctx - 1) // stride
    if ndata != 3:
        raise SystemExit(f"the text gives {ndata} windows, not 3 ({len(ids)} tokens)")
    data = os.path.join(args.work, "text.txt")
    with open(data, "w") as f:
        f.write(text)
    out = os.path.join(args.work, "stepped.gguf")
    cmd = [args.finetune, "-m", args.base, "--lora", start, "-f", data, "-c", str(args.ctx), "-b", str(args.ctx),
           "-ub", str(args.ctx), "--num-epochs", "1", "--learning-rate", str(args.lr), "--output-adapter", out,
           "-t", str(args.threads), "-fa", "off", "--seed", "1"]
    log = os.path.join(args.work, "finetune.log")
    with open(log, "w") as lf:
        lf.write("$ " + " ".join(cmd) + "\n")
        lf.flush()
        rc = subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT).returncode
    if rc != 0:
        raise SystemExit(f"the trainer failed ({rc}); see {log}")

    # The one trained window: the second.
    window = ids[stride:stride + args.ctx + 1]
    row = {"ids": window, "trained": [[1, len(window)]]}
    targets = list(range(1, len(window)))
    loss, _ = train_lora.loss_at(model, row, targets)
    loss.backward()
    _, stepped = train_lora.read_gguf(out)

    gen = torch.Generator().manual_seed(args.seed + 2)
    report = {"base": args.base, "ctx": args.ctx, "lr": args.lr, "tokens": len(ids), "trainer": " ".join(cmd), "tensors": {}}
    print(f"{'tensor':34} {'moved':>6} {'autograd':>12} {'finite diff.':>13}")
    for name in sorted(model.lora):
        for part, p in zip(("lora_a", "lora_b"), model.lora[name]):
            key = f"{name}.{part}"
            delta = stepped[key].double() - p.detach()
            grad = p.grad
            moved = delta.abs() > 0
            # A weight whose gradient is too small for its sign to be
            # read in float32 says nothing either way.
            sure = moved & (grad.abs() > 1e-6 * grad.abs().max())
            agree = int(((torch.sign(delta) == -torch.sign(grad)) & sure).sum())
            n = int(sure.sum())
            flat = sure.flatten().nonzero().flatten()
            pick = flat[torch.randperm(len(flat), generator=gen)[:args.sample]]
            fd_agree = 0
            eps = 1e-5
            for k in pick.tolist():
                idx = (k // p.shape[1], k % p.shape[1])
                fd = train_lora.finite_difference(model, row, targets, p, idx, eps)
                fd_agree += int((delta[idx] < 0) == (fd > 0))
            report["tensors"][key] = {"moved": int(moved.sum()), "checked": n, "agree_autograd": agree,
                                      "sampled": len(pick), "agree_finite_differences": fd_agree}
            print(f"{key:34} {int(moved.sum()):6d} {agree:5d}/{n:<6d} {fd_agree:6d}/{len(pick):<6d}")
    with open(os.path.join(args.work, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
