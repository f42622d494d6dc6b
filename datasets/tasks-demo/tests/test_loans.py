from shelf.loans import due_in, fine, is_overdue


def test_due_in_counts_the_loan_period():
    assert due_in(10, 10) == 21


def test_renewal_adds_a_period():
    assert due_in(0, 30, renewals=1) == 12


def test_overdue_after_the_due_day():
    assert is_overdue(0, 22)
    assert not is_overdue(0, 21)


def test_fine_per_day():
    assert fine(3) == 30


def test_no_fine_when_on_time():
    assert fine(0) == 0


def test_fine_is_capped():
    assert fine(100) == 500
