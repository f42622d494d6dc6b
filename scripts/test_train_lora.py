"""Checks of train_lora.py that need no server: its gradients against finite
differences, its mask, and its adapter file read back.

    python3 -m unittest scripts/test_train_lora.py

Run by `go test ./export/sfttokens` (TestTrainerPython), which fails where
PYHARNESS_NO_SKIP is set and PyTorch is missing.
"""

import math
import os
import sys
import tempfile
import unittest

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_lora  # noqa: E402


def tiny_model(seed=0, n_vocab=40, n_embd=16, n_ff=24, n_head=4, n_kv=2, n_layer=2):
    g = torch.Generator().manual_seed(seed)
    r = lambda *s, std=1.0: torch.randn(*s, generator=g, dtype=torch.float64) * std
    meta = {"general.architecture": "llama", "llama.block_count": n_layer, "llama.embedding_length": n_embd,
            "llama.attention.head_count": n_head, "llama.attention.head_count_kv": n_kv,
            "llama.attention.layer_norm_rms_epsilon": 1e-5, "llama.rope.freq_base": 10000.0}
    hd = n_embd // n_head
    t = {"token_embd.weight": r(n_vocab, n_embd), "output.weight": r(n_vocab, n_embd, std=0.3),
         "output_norm.weight": 1 + r(n_embd, std=0.1)}
    for i in range(n_layer):
        p = f"blk.{i}."
        t[p + "attn_norm.weight"] = 1 + r(n_embd, std=0.1)
        t[p + "ffn_norm.weight"] = 1 + r(n_embd, std=0.1)
        t[p + "attn_q.weight"] = r(n_embd, n_embd, std=n_embd ** -0.5)
        t[p + "attn_k.weight"] = r(hd * n_kv, n_embd, std=n_embd ** -0.5)
        t[p + "attn_v.weight"] = r(hd * n_kv, n_embd, std=n_embd ** -0.5)
        t[p + "attn_output.weight"] = r(n_embd, n_embd, std=n_embd ** -0.5)
        t[p + "ffn_gate.weight"] = r(n_ff, n_embd, std=n_embd ** -0.5)
        t[p + "ffn_up.weight"] = r(n_ff, n_embd, std=n_embd ** -0.5)
        t[p + "ffn_down.weight"] = r(n_embd, n_ff, std=n_ff ** -0.5)
    m = train_lora.Llama(meta, t, dtype=torch.float64)
    m.add_lora(train_lora.MODULES, rank=3, alpha=6, seed=seed, dtype=torch.float64)
    # B starts at zero, where A's gradient is zero too: give both values.
    g2 = torch.Generator().manual_seed(seed + 1)
    for a, b in m.lora.values():
        with torch.no_grad():
            b.copy_(torch.randn(b.shape, generator=g2, dtype=torch.float64) * 0.1)
    return m


ROW = {"ids": [1, 7, 3, 9, 12, 5, 30, 2, 8, 8, 17, 4], "trained": [[4, 7], [10, 12]]}


class GradientTest(unittest.TestCase):
    def check(self, unmasked):
        m = tiny_model()
        targets = train_lora.positions(ROW, unmasked)
        loss, _ = train_lora.loss_at(m, ROW, targets)
        loss.backward()
        eps = 1e-6
        worst, checked = 0.0, 0
        g = torch.Generator().manual_seed(3)
        for name, (a, b) in m.lora.items():
            for p in (a, b):
                grad = p.grad.clone()
                for _ in range(3):
                    idx = tuple(int(torch.randint(0, s, (1,), generator=g)) for s in p.shape)
                    fd = train_lora.finite_difference(m, ROW, targets, p, idx, eps)
                    err = abs(fd - float(grad[idx])) / max(1e-6, abs(fd) + abs(float(grad[idx])))
                    worst = max(worst, err)
                    checked += 1
                    self.assertLess(err, 1e-5, f"{name} {idx}: autograd {float(grad[idx]):.8g}, finite differences {fd:.8g}")
        self.assertEqual(checked, 3 * 2 * len(m.lora))
        self.assertEqual(len(m.lora), 7 * 2 + 1)

    def test_masked(self):
        self.check(unmasked=False)

    def test_unmasked(self):
        self.check(unmasked=True)


class MaskTest(unittest.TestCase):
    def test_masked_loss_reads_only_trained_ids(self):
        m = tiny_model()
        targets = train_lora.positions(ROW, False)
        self.assertEqual(targets, [4, 5, 6, 10, 11])
        base, _ = train_lora.loss_at(m, ROW, targets)
        # Changing an id the mask does not train, after every trained one,
        # changes nothing; changing a trained id does.
        later = {"ids": ROW["ids"][:-1] + [ROW["ids"][-1]], "trained": ROW["trained"]}
        changed = dict(ROW, ids=ROW["ids"][:7] + [33] + ROW["ids"][8:])
        # id 7 is untrained but is context for ids 10 and 11: the loss moves.
        l2, _ = train_lora.loss_at(m, changed, targets)
        self.assertNotAlmostEqual(float(base), float(l2))
        trained_changed = dict(ROW, ids=ROW["ids"][:5] + [33] + ROW["ids"][6:])
        l3, _ = train_lora.loss_at(m, trained_changed, targets)
        self.assertNotAlmostEqual(float(base), float(l3))
        l4, _ = train_lora.loss_at(m, later, targets)
        self.assertAlmostEqual(float(base), float(l4))
        self.assertEqual(train_lora.positions(ROW, True), list(range(1, 12)))

    def test_untrained_row_is_the_base(self):
        m = tiny_model()
        for a, b in m.lora.values():
            with torch.no_grad():
                b.zero_()
        h1 = m.logits(m.hidden(ROW["ids"]))
        m2 = tiny_model()
        m2.lora = {}
        h2 = m2.logits(m2.hidden(ROW["ids"]))
        self.assertTrue(torch.allclose(h1, h2))


class DecisionTest(unittest.TestCase):
    def test_identical_rows_do_not_vary(self):
        d = train_lora.decision(tiny_model(), [ROW, dict(ROW)])
        self.assertAlmostEqual(d["cosine_min"], 1.0, places=9)
        self.assertAlmostEqual(d["varying_share"], 0.0, places=9)
        self.assertEqual(d["shared_prefix"], len(ROW["ids"]))

    def test_rows_that_differ_vary_and_attention_is_read_after_the_prefix(self):
        other = dict(ROW, ids=ROW["ids"][:2] + [33, 34] + ROW["ids"][4:])
        d = train_lora.decision(tiny_model(), [ROW, other])
        self.assertEqual(d["shared_prefix"], 2)
        self.assertLess(d["cosine_min"], 1.0 - 1e-6)
        self.assertGreater(d["varying_share"], 1e-6)
        # Where the completion starts (position 3), positions 2 and 3 are
        # after the prefix: half of the four seen.
        self.assertAlmostEqual(d["positions_after_prefix"], 0.5)
        for a in d["attention_after_prefix"]:
            self.assertTrue(0.0 < a < 1.0, a)
        # The attention kept is the softmax the forward used: each head's
        # weights from that position sum to one.
        m = tiny_model()
        m.hidden(ROW["ids"][:4], attention_at=3)
        for a in m.attention:
            self.assertTrue(torch.allclose(a.sum(-1), torch.ones(a.shape[0], dtype=a.dtype)))


class AdapterFileTest(unittest.TestCase):
    def test_round_trip(self):
        m = tiny_model()
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "a.gguf")
            train_lora.write_adapter(p, "llama", 6, m.lora)
            meta, t = train_lora.read_gguf(p)
            self.assertEqual(meta["general.type"], "adapter")
            self.assertEqual(meta["adapter.type"], "lora")
            self.assertEqual(meta["adapter.lora.alpha"], 6.0)
            self.assertEqual(len(t), 2 * len(m.lora))
            for name, (a, b) in m.lora.items():
                self.assertTrue(torch.allclose(t[name + ".lora_a"].double(), a.detach(), atol=1e-6))
                self.assertTrue(torch.allclose(t[name + ".lora_b"].double(), b.detach(), atol=1e-6))
            m2 = tiny_model()
            m2.lora = {}
            m2.load_lora(p, dtype=torch.float64)
            self.assertAlmostEqual(m2.lora_scale, 2.0)
            h1 = m.logits(m.hidden(ROW["ids"]))
            h2 = m2.logits(m2.hidden(ROW["ids"]))
            self.assertTrue(torch.allclose(h1, h2, atol=1e-4))


if __name__ == "__main__":
    unittest.main()
