#!/usr/bin/env python3
"""Checks of the plain-Python conservative peer: python3 internal/peers/test_conservative.py"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conservative  # noqa: E402
import easy  # noqa: E402

INF = float("inf")


class Reservations(unittest.TestCase):
    # 4 processors: A (2) runs until 100, B (1) until 1000, one is free.
    # The head H needs all 4 (at 1000); J2 needs 3 and fits from 100 to
    # 200; J3 needs 1 for 500 and arrives after J2.
    jobs = [(0, 100, 100, 2, "A"), (0, 1000, 1000, 1, "B"), (1, 10, 10, 4, "H"),
            (1, 100, 100, 3, "J2"), (1, 500, 500, 1, "J3")]

    def test_every_waiting_job_keeps_its_start(self):
        start = conservative.conservative(self.jobs, 4, 100, INF, 0)
        self.assertEqual(start[3], 100, "J2 when A ends")
        self.assertEqual(start[4], 200, "J3 after J2, not on the free processor now")
        self.assertEqual(start[2], 1000, "H when B ends")

    def test_easy_protects_only_the_head(self):
        # the contrast: EASY starts J3 now, which delays J2
        start = easy.easy(self.jobs, 4)
        self.assertEqual(start[4], 1)
        self.assertEqual(start[3], 501)

    def test_no_hold_beyond_the_window(self):
        # with a window of 50 s neither J2 (at 100) nor H holds anything,
        # so J3 starts now on the free processor
        start = conservative.conservative(self.jobs, 4, 100, 50, 0)
        self.assertEqual(start[4], 1)

    def test_depth_bounds_the_planned_jobs(self):
        # with a depth of 2 only H and J2 are planned; J3 waits unplanned
        start = conservative.conservative(self.jobs, 4, 2, INF, 0)
        self.assertEqual(start[3], 100)
        self.assertGreater(start[4], 1)


if __name__ == "__main__":
    unittest.main()
