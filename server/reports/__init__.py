"""Reports of a batch run for people and for CI: an HTML page, a SARIF 2.1.0 log and one patch per suggestion.

:func:`write_report` writes all three into a report folder, each file whole (a temporary file renamed);
:func:`build_sarif`, :func:`build_patches` and :func:`build_html` make each one's content.
"""
from ._folder import HTML_FILE, PATCH_FOLDER, SARIF_FILE, ReportFiles, write_report
from ._html import build_html
from ._patches import Patch, build_patches, git_diff
from ._sarif import MAX_FIX, MAX_MESSAGE, MAX_RESULTS, build_sarif

__all__ = [
    "HTML_FILE",
    "MAX_FIX",
    "MAX_MESSAGE",
    "MAX_RESULTS",
    "PATCH_FOLDER",
    "SARIF_FILE",
    "Patch",
    "ReportFiles",
    "build_html",
    "build_patches",
    "build_sarif",
    "git_diff",
    "write_report",
]
