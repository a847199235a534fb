/** Partition key of a Powertools idempotency table (Powertools' default attribute name). */
export const IDEMPOTENCY_TABLE_KEY = 'id';

/** Powertools' default TTL attribute: expired idempotency records are deleted by DynamoDB. */
export const IDEMPOTENCY_EXPIRY_ATTRIBUTE = 'expiration';
