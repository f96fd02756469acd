"""The phases of a round, one module each, in the rulebook's order: :mod:`.market` (the action
window and the market, P-1, P-2), :mod:`.pack_announce` (P-3, P-4), :mod:`.border_check` (the
negotiation, P-5), :mod:`.settlement` (Appendix A), :mod:`.collection` (main resources, P-6) and
:mod:`.end_of_round`. Each holds the legal-action, apply and seek kernels of its decisions,
dispatched by :mod:`borders_sim.rules.engine`.
"""
