//! JavaScript bindings in the form the call needs, where js-sys and web-sys have another.
//!
//! Every binding that touches a value a caller or a server hands in is `catch`. A `Response`
//! subclass, a forgery that passes `instanceof`, or a Proxy can throw where Web IDL says nothing
//! throws, and a JS exception must never unwind through wasm frames: the call would be left half
//! done, its promise never settled. web-sys declares those getters (`Response.status`, `.body`,
//! `AbortSignal.aborted`, …) as infallible, so their `catch` forms are here, on web-sys's types.
//! The rest take plain types where js-sys's generic signatures would only add casts: `bind` with a
//! number, `then` with two functions, `call` with a fixed number of arguments.

use alloc::string::String;
use js_sys::{Array, Function, Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{AbortSignal, ReadableStream, ReadableStreamDefaultReader, Response};

#[wasm_bindgen]
extern "C" {
    /// A JavaScript function: one of ours, or fetch and getToken.
    type Callable;

    #[wasm_bindgen(method, js_name = bind)]
    fn bind(this: &Callable, this_arg: &JsValue, key: f64) -> Function;

    /// `f.call(thisArg, a, b)`: every call of a caller's function, with the arguments it takes
    /// (an unused one is `undefined`).
    #[wasm_bindgen(method, catch, js_name = call)]
    fn call(
        this: &Callable,
        this_arg: &JsValue,
        a: &JsValue,
        b: &JsValue,
    ) -> Result<JsValue, JsValue>;

    /// A native promise.
    type Native;

    #[wasm_bindgen(method, js_name = then)]
    fn then(this: &Native, on_fulfilled: &JsValue, on_rejected: &JsValue) -> Promise;

    /// fetch's answer: a Response, or a subclass or forgery of one.
    type Answer;

    #[wasm_bindgen(method, catch, getter)]
    fn status(this: &Answer) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, getter, js_name = type)]
    fn kind(this: &Answer) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, getter)]
    fn body(this: &Answer) -> Result<JsValue, JsValue>;

    /// A ReadableStream or its reader (or what a Response subclass calls one).
    type Stream;

    #[wasm_bindgen(method, catch, js_name = getReader)]
    fn get_reader(this: &Stream) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn read(this: &Stream) -> Result<JsValue, JsValue>;

    /// `cancel()` of a stream and of a reader alike.
    #[wasm_bindgen(method, catch)]
    fn cancel(this: &Stream) -> Result<JsValue, JsValue>;

    /// What `reader.read()` resolves to.
    type ReadResult;

    #[wasm_bindgen(method, catch, getter)]
    fn done(this: &ReadResult) -> Result<bool, JsValue>;

    #[wasm_bindgen(method, catch, getter)]
    fn value(this: &ReadResult) -> Result<JsValue, JsValue>;

    /// A caller's AbortSignal (it passed `instanceof`, which a forgery can).
    type Signal;

    #[wasm_bindgen(method, catch, getter)]
    fn aborted(this: &Signal) -> Result<bool, JsValue>;

    #[wasm_bindgen(method, catch, getter)]
    fn reason(this: &Signal) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = addEventListener)]
    fn listen(this: &Signal, kind: &str, listener: &Function) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = removeEventListener)]
    fn unlisten(this: &Signal, kind: &str, listener: &Function) -> Result<(), JsValue>;

    // ---- globals ----

    /// `Promise.resolve(value)`: adopts a thenable (reading its `then` may throw).
    #[wasm_bindgen(catch, js_namespace = Promise, js_name = resolve)]
    pub fn promise_resolve(value: &JsValue) -> Result<Promise, JsValue>;

    /// `setTimeout(handler, ms)`: a number in browsers and workerd, an object in Node.
    #[wasm_bindgen(js_name = setTimeout)]
    pub fn set_timeout(handler: &Function, ms: f64) -> JsValue;

    /// `clearTimeout(id)`.
    #[wasm_bindgen(js_name = clearTimeout)]
    pub fn clear_timeout(id: &JsValue);

    /// `Array.isArray(value)`; throws for a revoked Proxy.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    pub fn is_array(value: &JsValue) -> Result<bool, JsValue>;

    /// `Object.getPrototypeOf(value)`; a Proxy trap may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = getPrototypeOf)]
    pub fn prototype_of(value: &JsValue) -> Result<JsValue, JsValue>;

    /// `Object.keys(value)`: own enumerable string keys; a Proxy trap may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    pub fn keys(value: &JsValue) -> Result<Array, JsValue>;

    /// An array of strings (`Object.keys`).
    type Keys;

    #[wasm_bindgen(method, getter)]
    fn length(this: &Keys) -> u32;

    #[wasm_bindgen(method)]
    fn join(this: &Keys) -> JsValue;

    #[wasm_bindgen(method, indexing_getter)]
    fn at(this: &Keys, index: u32) -> JsValue;

    /// `globalThis`, where the global fetch is looked up.
    #[wasm_bindgen(thread_local_v2, js_name = globalThis)]
    pub static GLOBAL: JsValue;

    /// `Object.hasOwn(value, key)`; a Proxy trap may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = hasOwn)]
    pub fn has_own(value: &JsValue, key: &JsValue) -> Result<bool, JsValue>;

    /// `Object.assign(target, source)`, from our own objects.
    #[wasm_bindgen(js_namespace = Object, js_name = assign)]
    pub fn assign(target: &Object, source: &Object) -> Object;

    /// `Object.defineProperty(target, key, descriptor)`, on our own objects.
    #[wasm_bindgen(js_namespace = Object, js_name = defineProperty)]
    pub fn define_property(target: &Object, key: &JsValue, descriptor: &Object);

    /// `Object.freeze(value)`.
    #[wasm_bindgen(js_namespace = Object, js_name = freeze)]
    pub fn freeze(value: &Object);
}

/// `f.bind(null, key)`: one of the module's long-lived closures, fixed to one call.
pub fn bind_key(f: &Function, key: f64) -> Function {
    f.unchecked_ref::<Callable>().bind(&JsValue::NULL, key)
}

/// `f(a, b)`, with `this` undefined.
pub fn call(f: &Function, a: &JsValue, b: &JsValue) -> Result<JsValue, JsValue> {
    f.unchecked_ref::<Callable>()
        .call(&JsValue::UNDEFINED, a, b)
}

/// `promise.then(onFulfilled, onRejected)`, for a native promise.
pub fn then_with(promise: &Promise, on_fulfilled: &JsValue, on_rejected: &JsValue) -> Promise {
    promise
        .unchecked_ref::<Native>()
        .then(on_fulfilled, on_rejected)
}

/// `response.status`.
pub fn try_status(response: &Response) -> Result<JsValue, JsValue> {
    response.unchecked_ref::<Answer>().status()
}

/// `response.type`.
pub fn try_type(response: &Response) -> Result<JsValue, JsValue> {
    response.unchecked_ref::<Answer>().kind()
}

/// `response.body`: a ReadableStream or null.
pub fn try_body(response: &Response) -> Result<JsValue, JsValue> {
    response.unchecked_ref::<Answer>().body()
}

/// `stream.getReader()`.
pub fn try_get_reader(stream: &ReadableStream) -> Result<JsValue, JsValue> {
    stream.unchecked_ref::<Stream>().get_reader()
}

/// `stream.cancel()` or `reader.cancel()`.
pub fn try_cancel(stream_or_reader: &JsValue) -> Result<JsValue, JsValue> {
    stream_or_reader.unchecked_ref::<Stream>().cancel()
}

/// `reader.read()`.
pub fn try_read(reader: &ReadableStreamDefaultReader) -> Result<JsValue, JsValue> {
    reader.unchecked_ref::<Stream>().read()
}

/// `result.done` of a read: `true` only when it is `true`.
pub fn try_done(result: &JsValue) -> Result<bool, JsValue> {
    result.unchecked_ref::<ReadResult>().done()
}

/// `result.value` of a read.
pub fn try_value(result: &JsValue) -> Result<JsValue, JsValue> {
    result.unchecked_ref::<ReadResult>().value()
}

/// The number of `keys` and their `join()` (comma-separated).
pub fn count_and_join(keys: &Array) -> (u32, JsValue) {
    let keys = keys.unchecked_ref::<Keys>();
    (keys.length(), keys.join())
}

/// The strings of an array of keys, as Rust strings (a lone surrogate becomes U+FFFD).
pub fn strings(keys: &Array) -> impl Iterator<Item = String> + '_ {
    let keys = keys.unchecked_ref::<Keys>();
    (0..keys.length()).map(move |i| keys.at(i).as_string().unwrap_or_default())
}

/// `signal.aborted`.
pub fn try_aborted(signal: &AbortSignal) -> Result<bool, JsValue> {
    signal.unchecked_ref::<Signal>().aborted()
}

/// `signal.reason`.
pub fn try_reason(signal: &AbortSignal) -> Result<JsValue, JsValue> {
    signal.unchecked_ref::<Signal>().reason()
}

/// `signal.addEventListener(kind, listener)`.
pub fn try_listen(signal: &AbortSignal, kind: &str, listener: &Function) -> Result<(), JsValue> {
    signal.unchecked_ref::<Signal>().listen(kind, listener)
}

/// `signal.removeEventListener(kind, listener)`.
pub fn try_unlisten(signal: &AbortSignal, kind: &str, listener: &Function) -> Result<(), JsValue> {
    signal.unchecked_ref::<Signal>().unlisten(kind, listener)
}

/// `typeof`, in words, for messages: `null` and `array` by their names.
pub fn type_name(value: &JsValue) -> &'static str {
    if value.is_null() {
        return "null";
    }
    if value.is_object() {
        return if is_array(value).unwrap_or(false) {
            "array"
        } else {
            "object"
        };
    }
    match value.js_typeof().as_string().as_deref() {
        Some("undefined") => "undefined",
        Some("boolean") => "boolean",
        Some("number") => "number",
        Some("bigint") => "bigint",
        Some("string") => "string",
        Some("symbol") => "symbol",
        Some("function") => "function",
        _ => "object",
    }
}

/// `value` as a Rust string when it is a well-formed JS string. `Err(Some(type))` for a value
/// that is not a string, `Err(None)` for one with a lone surrogate (which a plain conversion
/// would silently replace with U+FFFD): only a string holding U+FFFD is asked `isWellFormed()`.
pub fn well_formed_string(value: &JsValue) -> Result<String, Option<&'static str>> {
    let Some(text) = value.as_string() else {
        return Err(Some(type_name(value)));
    };
    // A byte scan: `str::contains(char)` would bring core's slicing panics and their formatting.
    let replaced = text
        .as_bytes()
        .windows(3)
        .any(|w| w == "\u{FFFD}".as_bytes());
    if replaced && !value.unchecked_ref::<js_sys::JsString>().is_well_formed() {
        return Err(None);
    }
    Ok(text)
}
