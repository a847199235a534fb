/**
 * The retry budget's reservation (contracts/retry-budget.ts RESERVE_CALL) as the model's guard: its
 * condition expression is parsed, not copied, so a changed reservation changes the model. Names map
 * to the model's call counters: `#calls.#op` is the operation's counter, `#budget` and
 * `:deploymentBudget` the budget (the model's records carry it: `attribute_not_exists(#budget)` is
 * false), `#orderId` the key (the record exists).
 */

/** The reservation as the adapter sends it: an ADD and its condition. */
export interface Reservation {
  readonly updateExpression: string;
  readonly conditionExpression: string;
}

const OPERANDS: Readonly<Record<string, string>> = {
  '#calls.#op': 'calls[op]',
  '#budget': 'BUDGET',
  ':deploymentBudget': 'BUDGET',
};
const EXISTS: Readonly<Record<string, boolean>> = { '#orderId': true, '#budget': true };

class Parser {
  private position = 0;
  private readonly tokens: string[];

  constructor(private readonly text: string) {
    this.tokens = text.match(/\(|\)|<=|<|AND|OR|[a-z_]+(?=\()|[#:][A-Za-z.#]+/g) ?? [];
    const rebuilt = this.tokens.join('').replace(/\s/g, '');
    if (rebuilt !== text.replace(/\s/g, ''))
      throw new Error(`The reservation's condition has tokens the model cannot read: '${text}'`);
  }

  parse(): string {
    const expression = this.or();
    if (this.position !== this.tokens.length)
      throw new Error(`Unexpected '${this.tokens[this.position]}' in '${this.text}'`);
    return expression;
  }

  private peek(): string | undefined {
    return this.tokens[this.position];
  }

  private take(expected?: string): string {
    const token = this.tokens[this.position++];
    if (token === undefined || (expected !== undefined && token !== expected)) {
      throw new Error(`Expected ${expected ?? 'more'} in '${this.text}', got '${token ?? 'the end'}'`);
    }
    return token;
  }

  private or(): string {
    const terms = [this.and()];
    while (this.peek() === 'OR') {
      this.take('OR');
      terms.push(this.and());
    }
    return terms.length === 1 ? (terms[0] as string) : `(${terms.join(' || ')})`;
  }

  private and(): string {
    const factors = [this.factor()];
    while (this.peek() === 'AND') {
      this.take('AND');
      factors.push(this.factor());
    }
    return factors.length === 1 ? (factors[0] as string) : `(${factors.join(' && ')})`;
  }

  private factor(): string {
    const token = this.take();
    if (token === '(') {
      const inner = this.or();
      this.take(')');
      return inner;
    }
    if (token === 'attribute_exists' || token === 'attribute_not_exists') {
      this.take('(');
      const path = this.take();
      this.take(')');
      const exists = this.exists(path);
      return token === 'attribute_exists' ? exists : `!${exists}`;
    }
    const operator = this.take();
    const right = this.take();
    return `(${this.value(token)} ${operator} ${this.value(right)})`;
  }

  private exists(path: string): string {
    if (path === '#calls.#op') return '(calls[op] != 0)';
    const known = EXISTS[path];
    if (known === undefined) throw new Error(`The model does not know whether ${path} exists`);
    return known ? '1' : '0';
  }

  private value(name: string): string {
    const variable = OPERANDS[name];
    if (variable === undefined) throw new Error(`The model has no value for ${name} in the reservation`);
    return variable;
  }
}

/**
 * `inline reserve(op, ok)`: the reservation's condition and its ADD in one atomic step, with the
 * budget's property checked after it (calls never exceed the budget). The agent's lean write
 * (progressStepRunning) is ANDed to it by the caller, as the adapter does.
 */
export function reservationGuard(reservation: Reservation): string {
  if (reservation.updateExpression.replace(/\s+/g, ' ').trim() !== 'ADD #calls.#op :one') {
    throw new Error(
      `The model knows the reservation as 'ADD #calls.#op :one', not '${reservation.updateExpression}'`,
    );
  }
  return new Parser(reservation.conditionExpression).parse();
}
