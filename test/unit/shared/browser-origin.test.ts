import {
  BROWSER_ORIGIN_ENV,
  browserOriginHeaders,
  CORRELATION_ID_HEADER,
  internalErrorResponse,
} from '../../../lambdas/shared/http';

describe('answers readable by the operator console (CORS)', () => {
  it('name the one allowed origin, and expose the headers the page reads', () => {
    expect(browserOriginHeaders({ [BROWSER_ORIGIN_ENV]: 'https://d1.cloudfront.net' })).toEqual({
      'Access-Control-Allow-Origin': 'https://d1.cloudfront.net',
      'Access-Control-Expose-Headers': `${CORRELATION_ID_HEADER}, Retry-After`,
      Vary: 'Origin',
    });
  });

  it('carry no CORS header where no browser origin is configured (the client routes, the local runtime)', () => {
    expect(browserOriginHeaders({})).toEqual({});
    expect(browserOriginHeaders({ [BROWSER_ORIGIN_ENV]: '' })).toEqual({});
  });

  it('include the 500 that names only the correlation id', () => {
    const previous = process.env[BROWSER_ORIGIN_ENV];
    process.env[BROWSER_ORIGIN_ENV] = 'https://d1.cloudfront.net';
    try {
      expect(internalErrorResponse('c-1').headers).toEqual(
        expect.objectContaining({
          'Access-Control-Allow-Origin': 'https://d1.cloudfront.net',
          [CORRELATION_ID_HEADER]: 'c-1',
        }),
      );
    } finally {
      if (previous === undefined) delete process.env[BROWSER_ORIGIN_ENV];
      else process.env[BROWSER_ORIGIN_ENV] = previous;
    }
  });
});
