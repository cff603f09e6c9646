/** A refusal of an operator action (bad argument, missing company...): shown to the operator as is. */
export class OperationError extends Error {
  override name = 'OperationError';
}
