<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/**
 * Tells the program's developers when the API answers that a call uses something deprecated
 * (`Deprecation` RFC 9745, `Sunset` RFC 8594, `Link` rel="deprecation"; the compatibility
 * policy): once per call site of the program, as an E_USER_DEPRECATED (trigger_error), or to
 * `onDeprecation` instead.
 */
final class Deprecations
{
    /** @var array<string, true> the call sites already told */
    private array $told = [];

    /** @param (callable(DeprecationInfo): void)|null $onDeprecation */
    public function __construct(private readonly mixed $onDeprecation = null)
    {
    }

    /** @param array<string, string> $headers an answer's headers, names in lower case */
    public static function read(string $method, string $path, array $headers, ?string $callSite = null): ?DeprecationInfo
    {
        $deprecation = $headers['deprecation'] ?? null;
        $sunset = $headers['sunset'] ?? null;
        if ($deprecation === null && $sunset === null) {
            return null;
        }
        $since = null;
        if ($deprecation !== null && preg_match('/^@(-?\d+)$/', trim($deprecation), $m) === 1) {
            $since = (new \DateTimeImmutable('@' . $m[1]));
        }
        $until = null;
        if ($sunset !== null && ($time = strtotime($sunset)) !== false) {
            $until = new \DateTimeImmutable('@' . $time);
        }
        $link = null;
        if (preg_match('/<([^>]*)>\s*;[^,]*rel="?deprecation"?/i', $headers['link'] ?? '', $m) === 1) {
            $link = $m[1];
        }
        return new DeprecationInfo($method, explode('?', $path, 2)[0], $since, $until, $link, $callSite);
    }

    /** @param array<string, string> $headers */
    public function notice(string $method, string $path, array $headers): void
    {
        if (!isset($headers['deprecation']) && !isset($headers['sunset'])) {
            return;
        }
        $info = self::read($method, $path, $headers, self::callSite());
        $key = ($info?->callSite ?? '') . ' ' . $method . ' ' . $info?->path;
        if ($info === null || isset($this->told[$key])) {
            return;
        }
        $this->told[$key] = true;
        if ($this->onDeprecation !== null) {
            ($this->onDeprecation)($info);
        } else {
            trigger_error($info->message(), E_USER_DEPRECATED);
        }
    }

    /** The first frame of the stack outside this package's src/. */
    private static function callSite(): ?string
    {
        foreach (debug_backtrace(DEBUG_BACKTRACE_IGNORE_ARGS) as $frame) {
            $file = $frame['file'] ?? null;
            if ($file !== null && !str_starts_with($file, __DIR__ . DIRECTORY_SEPARATOR)) {
                return $file . ':' . ($frame['line'] ?? 0);
            }
        }
        return null;
    }
}
