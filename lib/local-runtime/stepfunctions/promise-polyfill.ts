/**
 * aws-local-stepfunctions 3 calls Promise.withResolvers (Node 22+). `npm start` runs on Node 20 and
 * does not load the Jest setup files, so this module installs the polyfill itself. It is imported
 * for its side effect before the engine is loaded.
 */
if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>() {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

export {};
