import unittest

from jobs import describe, load_jobs

INI = """
[backup]
command = tar czf /backup/home.tgz /home
timeout_seconds = 3600

[cleanup]
command = find /tmp -mtime +7 -delete
"""


class JobsTest(unittest.TestCase):
    def test_load(self):
        jobs = load_jobs(INI)
        self.assertEqual(jobs["backup"]["timeout"], 3600)
        self.assertEqual(jobs["cleanup"]["timeout"], 600)

    def test_describe(self):
        self.assertEqual(
            describe(load_jobs(INI)),
            [
                "backup: tar czf /backup/home.tgz /home (timeout 1h)",
                "cleanup: find /tmp -mtime +7 -delete (timeout 10m)",
            ],
        )
