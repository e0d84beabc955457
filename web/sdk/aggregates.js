// Aggregation queries: `getAggregateFromServer(query, { total: sum('price'), n: count() })`, computed by the
// server (POST /api/query/aggregate, docs/api.md) under the security rules, as Firestore's are.

import { invalidArgument } from './errors.js';
import { Query } from './references.js';
import { encodeQuery } from './query.js';
import { fieldText } from './values.js';

/** One aggregation: made by `count()`, `sum(field)` or `average(field)`. */
export class AggregateField {
  constructor(aggregateType, field) {
    this.type = 'AggregateField';
    this.aggregateType = aggregateType;
    this._field = field;
  }
}

/** The number of documents the query matches. */
export const count = () => new AggregateField('count');

/** The sum of a field's numbers (an integer while every value is one and it fits; other values are skipped). */
export const sum = (field) => new AggregateField('sum', fieldText(field));

/** The mean of a field's numbers, `null` when there are none. */
export const average = (field) => new AggregateField('avg', fieldText(field));

/** Whether two aggregations are the same. */
export const aggregateFieldEqual = (a, b) =>
  a instanceof AggregateField && b instanceof AggregateField && a.aggregateType === b.aggregateType && a._field === b._field;

/** The result of `getAggregateFromServer`: `data()` holds each alias's value. */
export class AggregateQuerySnapshot {
  constructor(query, data) {
    this.type = 'AggregateQuerySnapshot';
    this.query = query;
    this._data = data;
  }

  /** `{alias: value}`: counts and integer sums as numbers, averages as numbers or `null`. */
  data() {
    return { ...this._data };
  }
}

/** Runs the aggregations (`{alias: count() | sum('f') | average('f')}`, one to five) over the query's documents. */
export async function getAggregateFromServer(query, aggregateSpec) {
  if (!(query instanceof Query)) throw invalidArgument('getAggregateFromServer takes a query');
  const aliases = Object.entries(aggregateSpec ?? {});
  if (!aliases.length) throw invalidArgument('getAggregateFromServer needs at least one aggregation');
  const aggregate = {};
  for (const [alias, field] of aliases) {
    if (!(field instanceof AggregateField)) throw invalidArgument(`${alias} must be count(), sum(field) or average(field)`);
    aggregate[alias] = field.aggregateType === 'count' ? { count: {} }
      : field.aggregateType === 'sum' ? { sum: field._field } : { average: field._field };
  }
  const { body } = encodeQuery(query._q);
  const response = await query.firestore._call('POST', '/api/query/aggregate', { body: { ...body, aggregate } });
  return new AggregateQuerySnapshot(query, response.body.data ?? {});
}
