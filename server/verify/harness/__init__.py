"""The harness that drives one function: its plan, the units generated for it, its inputs.

``_plan`` decides each parameter's kind and its size hypotheses (``_sizes``
works out the sizes an index reaches; ``_headers`` finds the project headers
whose types the plan reads, with the flags ``_compile_db`` reads from the
project's ``compile_commands.json``); ``_units`` writes the translation units a worker
is linked with (``_side_glue`` and ``_type_glue`` the glue in them);
``_cases`` draws the inputs each call is checked and timed on. Nothing here
runs anything: ``verify._probe`` runs the original on these inputs. Every
module is private to the verifier.
"""
