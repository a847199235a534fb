import { AwsApiError } from '../protocol/aws-api-error';
/**
 * SNS's errors as the SDK and the CLI name them (the Query protocol's Code: InvalidParameter,
 * ParameterValueInvalid, NotFound), and the JSON attribute values (FilterPolicy, RedrivePolicy) that
 * SNS takes as text or, from a template, as objects.
 */

export function notFound(message: string): AwsApiError {
  return new AwsApiError('NotFound', message, { statusCode: 404 });
}

export function invalidParameter(message: string): AwsApiError {
  return new AwsApiError('InvalidParameter', `Invalid parameter: ${message}`);
}

/** SNS's InvalidParameterValueException (code ParameterValueInvalid). */
export function parameterValueInvalid(message: string): AwsApiError {
  return new AwsApiError('ParameterValueInvalid', message);
}

/** An attribute's JSON text parsed (an object from a template as it is), or InvalidParameter. */
export function parseJsonAttribute(value: unknown, attributeName: string): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw invalidParameter(`${attributeName}: failed to parse JSON.`);
  }
}
