<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/** An answer said that the call uses something deprecated: what `onDeprecation` receives. */
final class DeprecationInfo
{
    public function __construct(
        public readonly string $method,
        /** The request's path under the base address, without its query (e.g. /customers). */
        public readonly string $path,
        /** Since when it is deprecated (`Deprecation: @<seconds>`), or null. */
        public readonly ?\DateTimeImmutable $deprecatedAt,
        /** From when it may stop working (`Sunset`), or null. */
        public readonly ?\DateTimeImmutable $sunsetAt,
        /** The rel="deprecation" link: where the docs explain it. */
        public readonly ?string $link,
        /** Where the program made the call (file:line), or null. */
        public readonly ?string $callSite,
    ) {
    }

    public function message(): string
    {
        $text = "Partner API: {$this->method} {$this->path} uses something deprecated";
        if ($this->deprecatedAt !== null) {
            $text .= ' since ' . $this->deprecatedAt->format('Y-m-d');
        }
        if ($this->sunsetAt !== null) {
            $text .= ', may stop working from ' . $this->sunsetAt->format('Y-m-d');
        }
        if ($this->link !== null) {
            $text .= " ({$this->link})";
        }
        if ($this->callSite !== null) {
            $text .= ", called at {$this->callSite}";
        }
        return $text . '.';
    }
}
