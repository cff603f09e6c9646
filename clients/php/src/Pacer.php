<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/**
 * Pacing: wait before a request that a rate limit the API announced would refuse, instead of sending
 * it and meeting a 429 (a refused request still counts against the limits).
 *
 * What the client knows comes from the answers' IETF RateLimit headers:
 *   RateLimit-Policy: "key-minute";q=60;w=60, "key-writes-minute";q=10;w=60, ...
 *     every limit that counted the request, with its quota and window in seconds;
 *   RateLimit: "key-writes-minute";r=0;t=42
 *     the tightest of them: requests left and seconds until its window resets (every other limit of
 *     the policy has at least as many left).
 * The rules are those of the TypeScript and Python clients (which also share them between concurrent
 * calls; a PHP process makes one call at a time):
 * - a limit applies to the kind of request (read: GET, write: POST/PUT) whose answers listed it, and a
 *   limit that counts reads counts writes too;
 * - a request reserves one unit of every limit it applies to before it is sent; an answer sets the
 *   reported limit's remaining to its `r` (on the same window, the lower of that and what was known);
 * - a request waits while a limit it applies to has nothing left, until that limit's reset (then its
 *   quota is back);
 * - a server that sends no RateLimit headers is never waited for;
 * - a wait longer than `maxWait` is not made: the request goes, and the server's 429 (with its
 *   Retry-After) ends the call, as for the per-day limit.
 * Each PartnerApi object paces its own requests: several PHP processes sharing a key also share its
 * budget, and whichever meets a 429 waits its Retry-After.
 *
 * @internal
 */
final class Pacer
{
    private const SAME_WINDOW = 1.5;

    /** @var array<string, array{quota: ?int, window: ?int, remaining: ?int, resetAt: ?float, kinds: array<string, true>}> */
    private array $limits = [];
    /** @var array<string, int> */
    private array $inFlight = ['read' => 0, 'write' => 0];
    /** @var \Closure(): float */
    private \Closure $clock;
    /** @var \Closure(float): void */
    private \Closure $sleep;

    /**
     * @param (callable(PaceInfo): void)|null $onPace
     * @param (callable(): float)|null $clock monotonic seconds
     * @param (callable(float): void)|null $sleep
     */
    public function __construct(
        private readonly float $maxWait,
        private readonly mixed $onPace = null,
        ?callable $clock = null,
        ?callable $sleep = null,
    ) {
        $this->clock = $clock !== null ? \Closure::fromCallable($clock) : static fn (): float => hrtime(true) / 1e9;
        $this->sleep = $sleep !== null
            ? \Closure::fromCallable($sleep)
            : static function (float $seconds): void {
                usleep((int) ceil($seconds * 1e6));
            };
    }

    /** Waits until a request of this kind ("read" or "write") may go, then reserves it. */
    public function acquire(string $kind): void
    {
        while (true) {
            $now = ($this->clock)();
            $this->expire($now);
            $wait = $this->blocker($kind, $now);
            if ($wait === null || $wait[1] - $now > $this->maxWait) {
                $this->reserve($kind);
                return;
            }
            $delay = $wait[1] - $now;
            if ($this->onPace !== null) {
                ($this->onPace)(new PaceInfo($kind, $wait[0], $delay));
            }
            ($this->sleep)($delay);
        }
    }

    /**
     * Ends the reservation: with the answer's headers (lower-case names), or null when no answer came.
     *
     * @param array<string, string>|null $headers
     */
    public function release(string $kind, ?array $headers): void
    {
        $this->inFlight[$kind]--;
        if ($headers !== null) {
            $this->learn($kind, $headers, ($this->clock)());
        }
    }

    /** @return list<RateLimitState> */
    public function snapshot(): array
    {
        $now = ($this->clock)();
        $this->expire($now);
        $states = [];
        foreach ($this->limits as $name => $limit) {
            $states[] = new RateLimitState(
                (string) $name,
                $limit['quota'],
                $limit['window'],
                $limit['remaining'],
                $limit['resetAt'] === null ? null : max(0.0, $limit['resetAt'] - $now),
                array_values(array_filter(['read', 'write'], fn (string $kind): bool => $this->applies($limit, $kind))),
            );
        }
        return $states;
    }

    private function expire(float $now): void
    {
        foreach ($this->limits as $name => $limit) {
            if ($limit['resetAt'] !== null && $now >= $limit['resetAt']) {
                $this->limits[$name]['remaining'] = $limit['quota'];
                $this->limits[$name]['resetAt'] = null;
            }
        }
    }

    /** @return array{0: string, 1: float}|null the exhausted limit that resets last, or null */
    private function blocker(string $kind, float $now): ?array
    {
        $found = null;
        foreach ($this->limits as $name => $limit) {
            if (!$this->applies($limit, $kind) || $limit['remaining'] === null || $limit['remaining'] > 0) {
                continue;
            }
            if ($limit['resetAt'] !== null && $limit['resetAt'] > $now && ($found === null || $limit['resetAt'] > $found[1])) {
                $found = [(string) $name, $limit['resetAt']];
            }
        }
        return $found;
    }

    private function reserve(string $kind): void
    {
        $this->inFlight[$kind]++;
        foreach ($this->limits as $name => $limit) {
            if ($this->applies($limit, $kind) && $limit['remaining'] !== null) {
                $this->limits[$name]['remaining']--;
            }
        }
    }

    /** @param array{kinds: array<string, true>} $limit */
    private function applies(array $limit, string $kind): bool
    {
        return isset($limit['kinds'][$kind]) || ($kind === 'write' && isset($limit['kinds']['read']));
    }

    private function inFlightFor(string $name): int
    {
        $limit = $this->limits[$name];
        return ($this->applies($limit, 'read') ? $this->inFlight['read'] : 0)
            + ($this->applies($limit, 'write') ? $this->inFlight['write'] : 0);
    }

    private function ensure(string $name): void
    {
        $this->limits[$name] ??= ['quota' => null, 'window' => null, 'remaining' => null, 'resetAt' => null, 'kinds' => []];
    }

    /** @param array<string, string> $headers */
    private function learn(string $kind, array $headers, float $now): void
    {
        $policy = self::parseList($headers['ratelimit-policy'] ?? null);
        foreach ($policy as [$name, $params]) {
            $this->ensure($name);
            $this->limits[$name]['kinds'][$kind] = true;
            if (isset($params['q'])) {
                $this->limits[$name]['quota'] = $params['q'];
            }
            if (isset($params['w'])) {
                $this->limits[$name]['window'] = $params['w'];
            }
        }
        foreach (self::parseList($headers['ratelimit'] ?? null) as [$name, $params]) {
            if (!isset($params['r'])) {
                continue;
            }
            $r = $params['r'];
            $this->ensure($name);
            $this->limits[$name]['kinds'][$kind] = true;
            $limit = $this->limits[$name];
            $lower = $r - $this->inFlightFor($name);
            $resetAt = isset($params['t']) ? $now + $params['t'] : null;
            $sameWindow = $resetAt !== null && $limit['resetAt'] !== null && abs($resetAt - $limit['resetAt']) <= self::SAME_WINDOW;
            $this->limits[$name]['remaining'] = $sameWindow && $limit['remaining'] !== null ? min($limit['remaining'], $lower) : $lower;
            if ($resetAt !== null) {
                $this->limits[$name]['resetAt'] = $resetAt;
            }
            // The tightest limit has the fewest left: every other limit that counted this request has at least r.
            foreach ($policy as [$other]) {
                if ($other === $name) {
                    continue;
                }
                $bound = $r - $this->inFlightFor($other);
                $known = $this->limits[$other]['remaining'];
                $this->limits[$other]['remaining'] = $known === null ? $bound : max($known, $bound);
            }
        }
    }

    /**
     * A structured-field list as these headers use it: `"name";a=1;b=2, "other";a=3`.
     *
     * @return list<array{0: string, 1: array<string, int>}>
     */
    public static function parseList(?string $value): array
    {
        if ($value === null || $value === '') {
            return [];
        }
        preg_match_all('/(?:"[^"]*"|[^,])+/', $value, $members);
        $items = [];
        foreach ($members[0] as $member) {
            $parts = array_map('trim', explode(';', $member));
            $head = array_shift($parts);
            if (preg_match('/^"([^"]*)"$/D', $head, $quoted) === 1) {
                $name = $quoted[1];
            } elseif (preg_match('/^[A-Za-z*][A-Za-z0-9_.:\/*-]*$/D', $head) === 1) {
                $name = $head;
            } else {
                continue;
            }
            $params = [];
            foreach ($parts as $part) {
                if (preg_match('/^([a-z*][a-z0-9_.*-]*)=(-?[0-9]+)$/D', $part, $match) === 1) {
                    $params[$match[1]] = (int) $match[2];
                }
            }
            $items[] = [$name, $params];
        }
        return $items;
    }
}
