""""At most ``bound`` presses" as a cardinality network along a tree the claim names.

The branch-and-bound proofs of :mod:`flipgame.encode.bnb_proofs` count presses class by class: a
class is the set of presses whose value has the same form over the free presses not yet split
on.  They need the counter to have a unary output for every class, so the presses are counted
along a tree whose subtrees are those classes: a binary trie over one key per press (the key's
bits, most significant first; presses with equal keys are sorted by a balanced merge sort).
Any keys give a correct encoding of "at most ``bound``": the tree only decides in which order
the presses are added up.  So the keys are part of the claim, not something to trust.

The encoding (Batcher's odd-even merge, with comparators encoded in the upward direction only,
as in the cardinality networks of Asin, Nieuwenhuis, Oliveras and Rodriguez-Carbonell):

* a comparator of wires ``a, b`` into ``hi, lo`` has the clauses ``a -> hi``, ``b -> hi`` and
  ``a & b -> lo``: unit propagation turns the wires a set of true presses forces into a sorted
  vector with exactly that many leading ones;
* every trie node's output vector ``U`` (``U[i]``: at least ``i + 1`` of its presses are true),
  cut to its first ``bound + 1`` wires, also has ``U[i] -> U[i - 1]``;
* the root's wire ``bound`` (at least ``bound + 1``) is false.

A press set of at most ``bound`` presses satisfies the clauses with every wire set to its sorted
value; one of more forces the root's wire ``bound`` true.  O(m log^2 m) clauses on ``m`` presses.

Sources: K. E. Batcher, "Sorting networks and their applications", AFIPS 1968 (the odd-even
merge; any two lengths, D. E. Knuth, *The Art of Computer Programming* 3, 5.3.4); R. Asin,
R. Nieuwenhuis, A. Oliveras and E. Rodriguez-Carbonell, "Cardinality networks: a theoretical
and empirical study", Constraints 16(2), 2011.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Network:
    """A cardinality network being built: comparators over wire numbers, then clauses over variables."""

    cap: int
    """Wires kept per vector: ``bound + 1``."""
    wires: int = 0
    comparators: list[tuple[int, int, int, int]] = field(default_factory=list)

    def wire(self) -> int:
        self.wires += 1
        return -self.wires  # input wires are press variables (positive); inner wires negative until numbered

    def compare(self, a: int, b: int) -> tuple[int, int]:
        hi, lo = self.wire(), self.wire()
        self.comparators.append((a, b, hi, lo))
        return hi, lo

    def merge(self, a: list[int], b: list[int]) -> list[int]:
        """Batcher's odd-even merge of two vectors sorted with their true wires first, cut to :attr:`cap`."""
        a, b = a[:self.cap], b[:self.cap]
        if not a or not b:
            return (a or b)[:self.cap]
        if len(a) == 1 and len(b) == 1:
            return list(self.compare(a[0], b[0]))[:self.cap]
        v = self.merge(a[0::2], b[0::2])
        w = self.merge(a[1::2], b[1::2])
        out = [v[0]]
        for i in range(1, len(v)):
            if i - 1 < len(w):
                out += self.compare(v[i], w[i - 1])
            else:
                out.append(v[i])
        out += w[len(v) - 1:]
        return out[:self.cap]

    def sort(self, xs: list[int]) -> list[int]:
        """A merge sort of single wires."""
        if len(xs) <= 1:
            return list(xs)
        h = len(xs) // 2
        return self.merge(self.sort(xs[:h]), self.sort(xs[h:]))


def network_atmost(keys: list[int], key_bits: int, bound: int, top: int):
    """"At most ``bound`` of the presses ``1 .. len(keys)``" along the trie of ``keys``.

    Parameters
    ----------
    keys : list of int
        ``keys[j]``: press ``j``'s key, ``0 <= key < 2**key_bits``.
    key_bits : int
        Depth of the trie.
    bound : int
        At least 0 and below ``len(keys)``.
    top : int
        Highest variable used so far; the network's follow.

    Returns
    -------
    (clauses, new top, nodes)
        ``nodes[(level, prefix)]``: the output variables of the trie node of the presses whose key's
        top ``level`` bits are ``prefix`` (``level`` 0 is the root; cut to ``bound + 1``).  Running
        time O(m log^2 m) on ``m`` presses.

    Raises
    ------
    ValueError
        A key out of range, or a bound out of range.
    """
    m = len(keys)
    if not 0 <= bound < m:
        raise ValueError(f"the network needs 0 <= bound < {m}, got {bound}")
    if any(not 0 <= k < 1 << key_bits for k in keys):
        raise ValueError(f"a key is not below 2**{key_bits}")
    net = Network(cap=bound + 1)
    nodes: dict[tuple[int, int], list[int]] = {}

    def build(level: int, prefix: int, members: list[int]) -> list[int]:
        if level == key_bits:
            out = net.sort([j + 1 for j in members])
        else:
            bit = key_bits - 1 - level
            halves = ([j for j in members if not keys[j] >> bit & 1], [j for j in members if keys[j] >> bit & 1])
            parts = [build(level + 1, prefix << 1 | h, part) for h, part in enumerate(halves) if part]
            out = parts[0] if len(parts) == 1 else net.merge(*parts)
        nodes[(level, prefix)] = out
        return out

    root = build(0, 0, list(range(m)))
    return _clauses(net, nodes, root, bound, top)


def _clauses(net: Network, nodes: dict, root: list[int], bound: int, top: int):
    """Number the wires that feed a node's outputs and write their clauses."""
    needed = {w for out in nodes.values() for w in out if w < 0}
    for a, b, hi, lo in reversed(net.comparators):
        if hi in needed or lo in needed:
            needed.update(w for w in (a, b) if w < 0)
    var: dict[int, int] = {}
    for w in sorted(needed, reverse=True):  # creation order
        top += 1
        var[w] = top

    def v(w: int) -> int:
        return w if w > 0 else var[w]

    clauses: list[list[int]] = []
    for a, b, hi, lo in net.comparators:
        if hi in needed:
            clauses += [[-v(a), v(hi)], [-v(b), v(hi)]]
        if lo in needed:
            clauses.append([-v(a), -v(b), v(lo)])
    numbered: dict[tuple[int, int], list[int]] = {}
    seen: set[int] = set()
    for key, out in nodes.items():
        numbered[key] = [v(w) for w in out]
        if id(out) not in seen:
            seen.add(id(out))
            clauses += [[-numbered[key][i], numbered[key][i - 1]] for i in range(1, len(out))]
    clauses.append([-v(root[bound])])
    return clauses, top, numbered
