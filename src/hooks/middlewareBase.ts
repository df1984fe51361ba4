import { MIDDLEWARE_BRAND } from "langchain";

/** Makes a class instance look exactly like a `createMiddleware` result to LangChain. */
export abstract class MiddlewareBase {
  abstract readonly name: string;

  constructor() {
    Object.defineProperty(this, MIDDLEWARE_BRAND, { value: true, enumerable: true });
  }
}
