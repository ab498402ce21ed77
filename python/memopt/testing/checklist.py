"""A list of named pass/fail checks, printed as they are made.

    checks = Checklist()
    checks.expect(a == b, "what a == b shows")
    return checks.finish()   # prints PASS or FAIL, returns the exit status
"""


class Checklist:
    def __init__(self):
        self.failures = []

    def expect(self, ok, text):
        """Prints `ok: text` or `FAIL: text` and records a failure."""
        print("%s: %s" % ("ok" if ok else "FAIL", text))
        if not ok:
            self.failures.append(text)

    def finish(self):
        """Prints PASS or FAIL; returns 0 or 1."""
        print("FAIL" if self.failures else "PASS")
        return 1 if self.failures else 0
