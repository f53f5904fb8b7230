"""The harness that drives one function: its plan, the units generated for it, its inputs, and what running it teaches.

``_plan`` decides each parameter's kind and its size hypotheses (``_sizes``
works out the sizes an index reaches; ``_headers`` finds the project headers
whose types the plan reads); ``_units`` writes the translation units a worker
is linked with (``_side_glue`` and ``_type_glue`` the glue in them);
``_cases`` draws the inputs each call is checked and timed on; ``_probe``
runs the original under AddressSanitizer and UBSan to confirm the sizes and
learn the domain. Every module is private to the verifier.
"""
