"""Loan periods counted in days."""

LOAN_DAYS = 21


def due_in(borrowed_day, today, renewals=0):
    """Days left before a loan is due (negative when overdue)."""
    period = LOAN_DAYS * (1 + renewals)
    return borrowed_day + period - today


def is_overdue(borrowed_day, today, renewals=0):
    """Whether the loan is past its due day."""
    return due_in(borrowed_day, today, renewals) < 0


def fine(days_over, per_day=10, cap=500):
    """The fine in cents for a loan days_over days late, at most cap."""
    if days_over <= 0:
        return 0
    return min(days_over * per_day, cap)
