/** A refusal of an operator action (bad argument, missing company...): shown to the operator as is. */
export class OperationError extends Error {
  override name = 'OperationError';
}

/**
 * An argument that is not what the operation takes (not an id, not a date, an unknown choice): a
 * usage error of the command line (exit status 2), not a refusal of the operation.
 */
export class ArgumentError extends OperationError {
  override name = 'ArgumentError';
}
