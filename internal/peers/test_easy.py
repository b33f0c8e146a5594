#!/usr/bin/env python3
"""Checks of the plain-Python EASY peer: python3 internal/peers/test_easy.py"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import easy  # noqa: E402


class ShadowTime(unittest.TestCase):
    def test_every_job_ending_at_the_shadow_time_frees_its_processors(self):
        # 4 processors; A and B (1 each) end by their estimates at 100, C at
        # 1000. The head H needs 2: its shadow time is 100, when A and B
        # both end, leaving one extra processor; D, running past 100, may
        # take it now. Counting only A (the first end that reaches 2)
        # leaves no extra processor and holds D.
        jobs = [(0, 100, 100, 1, "A"), (0, 100, 100, 1, "B"), (0, 1000, 1000, 1, "C"),
                (1, 10, 10, 2, "H"), (1, 50, 5000, 1, "D")]
        start = easy.easy(jobs, 4)
        self.assertEqual(start[3], 100, "H at its shadow time")
        self.assertEqual(start[4], 1, "D on the extra processor")

    def test_a_job_past_the_shadow_time_needs_extra_processors(self):
        # As above but A and B end at different times: at the shadow time
        # (100) only A has ended, no processor is extra, and D waits.
        jobs = [(0, 100, 100, 1, "A"), (0, 200, 200, 1, "B"), (0, 1000, 1000, 1, "C"),
                (1, 10, 10, 2, "H"), (1, 50, 5000, 1, "D")]
        start = easy.easy(jobs, 4)
        self.assertEqual(start[3], 100)
        self.assertEqual(start[4], 110, "D when H ends: every free processor went to H at 100")


if __name__ == "__main__":
    unittest.main()
