"""Verification: independent witness checks and the all-backends agreement run."""

from .harness import AgreementReport, BackendSummary, run_agreement
from .witness import check_batch, check_solution

__all__ = ["AgreementReport", "BackendSummary", "check_batch", "check_solution", "run_agreement"]
