"""Hidden checks for retry: run after the agent ends, never shown to it."""

import io
import unittest

from retry import retry


class Flaky:
    """A callable that raises the given exceptions in turn, then returns "ok"."""

    def __init__(self, *errors):
        self.errors = list(errors)
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        self.last_args = (args, kwargs)
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


class RetryHiddenTest(unittest.TestCase):
    def test_returns_the_first_result_that_does_not_raise(self):
        flaky = Flaky(OSError("down"), OSError("still down"))
        self.assertEqual(retry(3)(flaky)(), "ok")
        self.assertEqual(flaky.calls, 3)

    def test_times_counts_every_call_and_the_last_error_is_raised(self):
        errors = [OSError("one"), OSError("two"), OSError("three"), OSError("four")]
        flaky = Flaky(*errors)
        with self.assertRaises(OSError) as caught:
            retry(3)(flaky)()
        self.assertIs(caught.exception, errors[2])
        self.assertEqual(flaky.calls, 3)

    def test_times_one_calls_once(self):
        flaky = Flaky(OSError("down"))
        with self.assertRaises(OSError):
            retry(1)(flaky)()
        self.assertEqual(flaky.calls, 1)

    def test_other_exceptions_propagate_at_once(self):
        flaky = Flaky(KeyError("not retried"))
        with self.assertRaises(KeyError):
            retry(5, exceptions=(OSError,))(flaky)()
        self.assertEqual(flaky.calls, 1)

    def test_only_listed_exceptions_are_retried(self):
        flaky = Flaky(ConnectionError("reset"), TimeoutError("slow"))
        self.assertEqual(retry(3, exceptions=(OSError,))(flaky)(), "ok")
        self.assertEqual(flaky.calls, 3)

    def test_arguments_are_passed_through(self):
        flaky = Flaky()
        retry(2)(flaky)(1, 2, key="value")
        self.assertEqual(flaky.last_args, ((1, 2), {"key": "value"}))

    def test_times_below_one_is_refused_when_the_decorator_is_made(self):
        for times in (0, -1):
            with self.subTest(times=times):
                with self.assertRaises(ValueError):
                    retry(times)

    def test_keeps_name_and_docstring(self):
        @retry(2)
        def load_status():
            """Load the status page."""

        self.assertEqual(load_status.__name__, "load_status")
        self.assertEqual(load_status.__doc__, "Load the status page.")


class RetryTestsHiddenTest(unittest.TestCase):
    def test_the_new_tests_run_and_pass(self):
        suite = unittest.defaultTestLoader.loadTestsFromName("tests.test_retry")
        result = unittest.TextTestRunner(stream=io.StringIO()).run(suite)
        self.assertGreaterEqual(result.testsRun, 2)
        self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
