"""Job definitions read from an INI file, one section a job."""

import configparser

from durations import format_duration


def load_jobs(text):
    """Parse INI text into {name: {"command": str, "timeout": seconds}}."""
    parser = configparser.ConfigParser()
    parser.read_string(text)
    jobs = {}
    for name in parser.sections():
        section = parser[name]
        jobs[name] = {
            "command": section["command"],
            "timeout": section.getint("timeout_seconds", fallback=600),
        }
    return jobs


def describe(jobs):
    """One line a job, sorted by name: "backup: tar czf ... (timeout 1h)"."""
    return [
        f"{name}: {job['command']} (timeout {format_duration(job['timeout'])})"
        for name, job in sorted(jobs.items())
    ]
