/** Whether a database error (possibly wrapped by drizzle) is a unique violation of `constraint`. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  for (let current: unknown = error; current; current = (current as { cause?: unknown }).cause) {
    const candidate = current as { code?: unknown; constraint?: unknown; message?: unknown };
    if (candidate.code === '23505') {
      return candidate.constraint === constraint || String(candidate.message ?? '').includes(constraint);
    }
  }
  return false;
}
