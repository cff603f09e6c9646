"""Pacing on the RateLimit headers, with answers written by the test and a clock it moves on."""

import threading
import time
import unittest

from invoicing_partner_api._pacing import READ, WRITE, Pacer, parse_list

READ_POLICY = '"key-minute";q=60;w=60, "key-day";q=5000;w=86400, "company-minute";q=120;w=60'
WRITE_POLICY = READ_POLICY + ', "key-writes-minute";q=10;w=60'


def answer(policy, tightest):
    return {"ratelimit-policy": policy, "ratelimit": tightest}


class Clock:
    """Real monotonic time plus an offset the test moves on."""

    def __init__(self):
        self.offset = 0.0

    def __call__(self):
        return time.monotonic() + self.offset


def in_thread(function):
    result = {}

    def run():
        result["value"] = function()
        result["at"] = time.monotonic()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, result


class PacerTest(unittest.TestCase):
    def setUp(self):
        self.paces = []
        self.clock = Clock()
        self.pacer = Pacer(60.0, self.paces.append, self.clock)

    def test_parse_list(self):
        self.assertEqual(
            parse_list('"key-minute";q=60;w=60, "key-writes-minute";q=10;w=60'),
            [("key-minute", {"q": 60, "w": 60}), ("key-writes-minute", {"q": 10, "w": 60})],
        )
        self.assertEqual(parse_list('"a";r=0;t=42'), [("a", {"r": 0, "t": 42})])
        self.assertEqual(parse_list('token;r=1, "x,y";r=2, ;;, bad name;r=3, "z";r=x'), [
            ("token", {"r": 1}),
            ("x,y", {"r": 2}),
            ("z", {}),
        ])
        self.assertEqual(parse_list(None), [])

    def test_a_server_without_the_headers_is_never_waited_for(self):
        first = self.pacer.acquire(WRITE)
        self.pacer.release(first, {})
        tickets = [self.pacer.acquire(WRITE) for _ in range(20)]
        for ticket in tickets:
            self.pacer.release(ticket, {})
        self.assertEqual(self.paces, [])
        self.assertEqual(self.pacer.snapshot(), [])

    def test_until_the_first_answer_one_request_of_a_kind_at_a_time(self):
        first = self.pacer.acquire(WRITE)
        read = self.pacer.acquire(READ)  # another kind: not held back
        thread, result = in_thread(lambda: self.pacer.acquire(WRITE))
        thread.join(0.2)
        self.assertTrue(thread.is_alive(), "the second write went before the first answer")
        released = time.monotonic()
        self.pacer.release(first, answer(WRITE_POLICY, '"key-writes-minute";r=9;t=60'))
        thread.join(2)
        self.assertGreaterEqual(result["at"], released)
        self.pacer.release(result["value"], None)
        self.pacer.release(read, None)

    def test_writes_wait_for_the_writes_limit_reads_do_not(self):
        ticket = self.pacer.acquire(WRITE)
        self.pacer.release(ticket, answer(WRITE_POLICY, '"key-writes-minute";r=0;t=1'))
        started = time.monotonic()
        self.pacer.release(self.pacer.acquire(READ), None)
        self.assertLess(time.monotonic() - started, 0.5)
        self.pacer.release(self.pacer.acquire(WRITE), None)
        self.assertGreaterEqual(time.monotonic() - started, 0.9)
        self.assertEqual([(p.kind, p.limit) for p in self.paces], [("write", "key-writes-minute")])
        self.assertLessEqual(self.paces[0].delay, 1.0)

    def test_a_limit_that_counts_reads_counts_writes(self):
        ticket = self.pacer.acquire(READ)
        self.pacer.release(ticket, answer(READ_POLICY, '"key-minute";r=0;t=1'))
        started = time.monotonic()
        self.pacer.release(self.pacer.acquire(WRITE), None)
        self.assertGreaterEqual(time.monotonic() - started, 0.9)
        self.assertEqual([p.limit for p in self.paces], ["key-minute"])

    def test_reservations_count_down_and_the_window_gives_the_quota_back(self):
        ticket = self.pacer.acquire(WRITE)
        self.pacer.release(ticket, answer(WRITE_POLICY, '"key-writes-minute";r=2;t=60'))
        held = [self.pacer.acquire(WRITE), self.pacer.acquire(WRITE)]
        state = {s.name: s for s in self.pacer.snapshot()}
        self.assertEqual(state["key-writes-minute"].remaining, 0)
        self.assertEqual(state["key-writes-minute"].quota, 10)
        self.assertEqual(state["key-writes-minute"].applies_to, ("write",))
        # Learnt from a write's answer only: it counts writes (a read's answer would add reads).
        self.assertEqual(state["key-minute"].applies_to, ("write",))
        # Every other limit of the policy had at least r=2 left.
        self.assertEqual(state["key-minute"].remaining, 0)
        for one in held:
            self.pacer.release(one, None)
        # The window resets: the quota is back, no wait.
        self.clock.offset += 61
        self.pacer.release(self.pacer.acquire(WRITE), None)
        self.assertEqual(self.paces, [])
        state = {s.name: s for s in self.pacer.snapshot()}
        self.assertEqual(state["key-writes-minute"].remaining, 9)

    def test_a_wait_longer_than_max_wait_is_not_made(self):
        pacer = Pacer(0.5, self.paces.append, self.clock)
        ticket = pacer.acquire(READ)
        pacer.release(ticket, answer(READ_POLICY, '"key-day";r=0;t=40000'))
        started = time.monotonic()
        pacer.release(pacer.acquire(READ), None)
        self.assertLess(time.monotonic() - started, 0.5)
        self.assertEqual(self.paces, [])

    def test_answers_out_of_order_never_raise_what_is_left(self):
        first = self.pacer.acquire(WRITE)
        self.pacer.release(first, answer(WRITE_POLICY, '"key-writes-minute";r=5;t=60'))
        a, b = self.pacer.acquire(WRITE), self.pacer.acquire(WRITE)
        # b's answer (counted after a's) arrives first.
        self.pacer.release(b, answer(WRITE_POLICY, '"key-writes-minute";r=3;t=60'))
        self.pacer.release(a, answer(WRITE_POLICY, '"key-writes-minute";r=4;t=60'))
        state = {s.name: s for s in self.pacer.snapshot()}
        self.assertEqual(state["key-writes-minute"].remaining, 2)

    def test_threads_share_the_budget(self):
        ticket = self.pacer.acquire(WRITE)
        self.pacer.release(ticket, answer(WRITE_POLICY, '"key-writes-minute";r=2;t=1'))
        starts = []
        lock = threading.Lock()

        def write():
            one = self.pacer.acquire(WRITE)
            with lock:
                starts.append(time.monotonic())
            time.sleep(0.05)
            self.pacer.release(one, None)

        began = time.monotonic()
        threads = [threading.Thread(target=write) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(5)
        early = [at for at in starts if at - began < 0.5]
        self.assertEqual(len(starts), 4)
        self.assertEqual(len(early), 2, "two writes were left in the window; the others wait for its reset")


if __name__ == "__main__":
    unittest.main()
