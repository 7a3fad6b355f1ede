import unittest

from pkg import add


class AddTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)


def test_add_pytest():
    assert add(-1, 1) == 0
