"""Judging a candidate: the screen before it is built, the checked and timed calls, the race check.

``_screen`` rejects model-written code that does what a computation has no
business doing; ``_pair`` drives the original and a candidate on the same
cases, checking every call (``_compare`` compares what they computed,
``_example`` writes a failing call out) and timing them interleaved
(``_stats`` turns the timings into a comparison); ``_race`` looks for data
races in OpenMP code. Every module is private to the verifier.
"""
