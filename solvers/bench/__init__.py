"""flipgame measuring itself: the measured run of ``make bench`` (:mod:`~flipgame.bench.measure`), every figure
the docs quote (:mod:`~flipgame.bench.measurements`), each solver library's per-call floor
(:mod:`~flipgame.bench.floors`), the certifications (:mod:`~flipgame.bench.proofs`) and the solver programs'
tables (:mod:`~flipgame.bench.programs`).  The figures land in ``flipgame/core/measured.json``, which the docs
and the help texts quote (:mod:`flipgame.core.measured`)."""
