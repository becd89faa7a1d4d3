"""Tooling above the domain: benchmarks, simulations, bot strength and the demo.

Every app lies below ops; none imports it.
"""
