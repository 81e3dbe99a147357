// Node's `Buffer`, which the library's HTTP and conversion code uses, from the `buffer` package:
// esbuild's `inject` makes every free `Buffer` in the browser build this one.
export { Buffer } from 'buffer';
