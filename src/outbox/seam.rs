//! The seam between the outbox's Rust and its JS shell, one door each way: what the shell and the
//! app tell is one [`OutboxCore::input`]`(type, n, a, b)`, read here into the tab's `Input`; what
//! Rust asks of the shell is one `perform(type, n, a, b)`, written here from the tab's `Action`.
//! Both are tagged unions of tuples, typed in `js/outbox/seam.d.ts`. By hand, not with
//! serde-wasm-bindgen: docs/outbox.md weighs the two.

use super::config::settings;
use super::driver::{said, Driver, Shell};
use super::entry::{Entry, Record};
use super::record::{self, field, list, set, strings, to_js, Fields};
use super::tab::{Action, Failure, Input, Tab};
use super::table::{Event, Step};
use crate::config::{random_values, uuid};
use crate::error::Draft;
use crate::js::api::new_plant;
use crate::Error;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Array, Date, Object, Promise};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("../js/outbox.d.ts");

/// How many created entries a load reads, newest first (the others are read by key).
const SHOWN: u32 = 100;

/// The outbox `options` describe, checked (a `config` error), for its shell to open; `worker`: a
/// service worker's, with no page life.
#[wasm_bindgen(js_name = openOutbox, skip_typescript)]
pub fn open_outbox(options: JsValue, worker: bool) -> Result<OutboxCore, JsValue> {
    let mut settings = settings(&options).map_err(|error| error.to_js())?;
    settings.rules.worker = worker;
    let platform = settings.platform.clone();
    if worker && field(&platform, "events").is_undefined() {
        let message =
            "deliverPlants runs in a service worker, whose events it hears on the global \
                       scope: where there is none, give options.platform.addEventListener";
        return Err(Error::config(message).to_js());
    }
    let document = field(&platform, "document");
    let locks = !field(&field(&platform, "navigator"), "locks").is_null_or_undefined();
    // The tab's ids are drawn from it: crypto's, not `Math.random`, which an app's tests may fix.
    let mut seed = [0u8; 8];
    let _ = random_values(&mut seed); // without it, no add succeeds either (uuid)
    let seed = u64::from_le_bytes(seed);
    let mut tab = Tab::new(settings.rules.clone(), locks, online(&platform), seed);
    // Where pages share the outbox (a document, the browser's own IndexedDB: not in Node, nor in an
    // app's tests on fake-indexeddb), each sends: it says so.
    let shared = field(&platform, "indexedDB") == field(&js_sys::global().into(), "indexedDB");
    if !locks && shared && !document.is_undefined() {
        tab.warn("this browser has no Web Locks API");
    }
    Ok(OutboxCore(Driver::new(settings, tab)))
}

/// One open outbox, as its JS shell holds it.
#[wasm_bindgen(skip_typescript)]
#[allow(missing_debug_implementations)] // JS values and closures: nothing in it prints usefully
pub struct OutboxCore(Rc<Driver>);

#[wasm_bindgen]
impl OutboxCore {
    /// Tells the outbox an `OutboxInput`: a promise for an app's call, else undefined.
    pub fn input(&self, kind: &str, n: u32, a: JsValue, b: JsValue) -> JsValue {
        let driver = &self.0;
        // A page may not tell that the network came or went: it is read at each input.
        let online = online(&driver.settings.platform);
        if driver.online.replace(online) != online {
            let kind = if online { "online" } else { "offline" };
            driver.tell(Input::Event { kind: kind.into(), persisted: false, hidden: false });
        }
        match read(driver, kind, n, a, b) {
            Ok(Some(input)) => driver.input(input),
            Ok(None) => JsValue::UNDEFINED,
            Err(error) => Promise::reject(&error.to_js()).into(),
        }
    }

    /// The platform APIs the shell uses: `options.platform`'s, else `globalThis`'s.
    #[wasm_bindgen(getter)]
    pub fn platform(&self) -> JsValue {
        self.0.settings.platform.clone()
    }

    /// The outbox's Background Sync tag: `plant-store-outbox:<name>`.
    #[wasm_bindgen(getter)]
    pub fn tag(&self) -> String {
        self.0.settings.named("")
    }

    /// The entries this tab holds, in the order they were added: the same frozen array until one
    /// changes.
    pub fn entries(&self) -> JsValue {
        self.0.entries()
    }

    /// The records set aside: `{ key, reason, record }` each.
    pub fn unreadable(&self) -> Array {
        let tab = self.0.tab.borrow();
        let each = tab.held.aside.iter().map(|(key, reason, raw)| {
            let one = Object::new();
            set(&one, "key", key.as_str());
            set(&one, "reason", reason.as_str());
            set(&one, "record", raw.clone());
            one
        });
        each.collect()
    }
}

/// Reads an `OutboxInput` (an app's call with its reply number 0, which the driver sets).
fn read(
    driver: &Driver,
    kind: &str,
    n: u32,
    a: JsValue,
    b: JsValue,
) -> Result<Option<Input<JsValue>>, Error> {
    let redact = |draft| driver.redact(draft);
    let key = || a.as_string().unwrap_or_default();
    let records = || -> Vec<Option<Record<JsValue>>> {
        list(&a).iter().map(|raw| record::read(&raw)).collect()
    };
    Ok(Some(match kind {
        "open" => {
            driver.shell.replace(Some(a.unchecked_into::<Shell>()));
            Input::Open { reply: 0 }
        }
        "add" => {
            let (plant, bigint) =
                new_plant(&a).map_err(|issues| redact(Draft::validation(issues)))?;
            let at = Date::now().max(driver.last_added.get() + 1.0);
            driver.last_added.set(at);
            Input::Add {
                reply: 0,
                entry: Entry::new(uuid("outbox.add").map_err(redact)?, plant, bigint, at),
            }
        }
        "get" => Input::Get { reply: 0, key: key() },
        "retry" => {
            let event = Event::Retry { key: uuid("outbox.retry").map_err(redact)? };
            Input::Act { reply: 0, key: key(), event, name: "retry" }
        }
        "markCreated" => {
            Input::Act { reply: 0, key: key(), event: Event::Resolve, name: "markCreated" }
        }
        "remove" => Input::Act { reply: 0, key: key(), event: Event::Remove, name: "remove" },
        "flush" => Input::Flush { reply: 0 },
        "pause" | "resume" => Input::Paused(kind == "pause"),
        "close" => Input::Close,
        // The page's events are heard from now: how it is now.
        "opened" => Input::Opened { n, hidden: hidden(&driver.settings.platform) },
        "read" => Input::Read { n, records: records() },
        "written" => Input::Written { n, failures: list(&a).iter().map(failure).collect() },
        "fed" => {
            let prefix = driver.settings.named("/tab/");
            let live = b.dyn_ref::<Array>().map(|locks| {
                let names = locks.iter().filter_map(|name| name.as_string());
                names.filter_map(|name| Some(name.strip_prefix(prefix.as_str())?.into())).collect()
            });
            Input::Fed { n, keys: strings(&a), live }
        }
        "purged" => Input::Purged { n, keys: strings(&a), next: b.as_f64() },
        "synced" => Input::Synced { n },
        "failed" => Input::Failed {
            n,
            failure: failure(a).unwrap_or(Failure { said: String::new(), cause: None }),
        },
        "granted" => Input::Granted { tab: n == 1 },
        "refused" => {
            Input::Refused { tab: n == 1, why: a.text("name").unwrap_or_else(|| said(&a)) }
        }
        "timer" => Input::Timer,
        "event" => return Ok(event(driver, &a)),
        _ => return Ok(None),
    }))
}

/// An event of the page, the network or the store as the tab's input; a message on the channel,
/// another tab's hint (`{ type, v: 1, keys, released? }`; anything else changes nothing).
fn event(driver: &Driver, event: &JsValue) -> Option<Input<JsValue>> {
    let kind = event.text("type")?;
    if kind == "message" {
        let data =
            event.object("data").filter(|data| data.text("type").as_deref() == Some(HINT))?;
        let released = data.flag("released") == Some(true);
        return (data.number("v") == Some(1.0))
            .then(|| Input::Hint { keys: strings(&field(&data, "keys")), released });
    }
    let hidden = hidden(&driver.settings.platform);
    let persisted = event.flag("persisted") == Some(true);
    // A database deleted (`indexedDB.deleteDatabase`) asks for no newer version.
    let deleted = kind == "versionchange" && field(event, "newVersion").is_null();
    let kind = if deleted { "deleted".into() } else { kind };
    Some(Input::Event { kind, persisted, hidden })
}

/// The hint's type on the channel.
const HINT: &str = "plant-store-outbox";

impl Driver {
    /// Hands the shell an `OutboxAction`, or does what Rust does itself.
    pub(crate) fn perform(self: &Rc<Self>, action: Action<JsValue>) {
        const NONE: JsValue = JsValue::UNDEFINED;
        let (kind, n, a, b): (&str, u32, JsValue, JsValue) = match action {
            Action::Open { n } => ("open", n, self.settings.named("").into(), NONE),
            Action::Read { n, keys } => {
                ("read", n, keys.map_or(NONE, |keys| to_js(keys).into()), SHOWN.into())
            }
            Action::Feed { n, until, locks } => ("feed", n, until.into(), locks.into()),
            Action::Purge { n, now } => ("purge", n, now.into(), record::SCHEMA.into()),
            Action::Write { n, keys, by_id } => ("write", n, to_js(keys).into(), by_id.into()),
            Action::Apply { n, steps } => {
                let records = steps.iter().map(|step| match step {
                    Step::Put(entry) => record::write::<Object>(entry).into(),
                    Step::Delete => JsValue::NULL,
                    Step::Keep(_) | Step::Refused(_) => JsValue::UNDEFINED,
                });
                ("apply", n, records.collect::<Array>().into(), NONE)
            }
            Action::Insert { n, entry, sync } => {
                let tag = if sync { self.settings.named("").into() } else { NONE };
                ("insert", n, record::write::<Object>(&entry).into(), tag)
            }
            Action::Lock { tab } => {
                let id =
                    if tab { ["/tab/", &self.tab.borrow().id].concat() } else { String::new() };
                ("lock", u32::from(tab), self.settings.named(&id).into(), NONE)
            }
            Action::Release { tab } => ("release", u32::from(tab), NONE, NONE),
            Action::Post { keys, released } => {
                let hint = Object::new();
                set(&hint, "type", HINT);
                set(&hint, "v", 1);
                set(&hint, "keys", to_js(keys));
                if released {
                    set(&hint, "released", true);
                }
                ("post", 0, hint.into(), NONE)
            }
            Action::Arm { at } => {
                ("arm", 0, at.map(|at| (at - Date::now()).clamp(0.0, 2_147_483_647.0)).into(), NONE)
            }
            Action::Sync => ("sync", 0, self.settings.named("").into(), NONE),
            Action::Changed { key } => ("changed", 0, self.changed(&key), NONE),
            Action::Closed { why } => ("closed", 0, why.into(), NONE),
            Action::Abandon => ("abandon", 0, NONE, NONE),
            Action::Shut => ("shut", 0, NONE, NONE),
            Action::Call { n, entry } => return self.send(n, entry),
            Action::Abort => return self.abort(),
            Action::Reply { reply, answer } => return self.reply(reply, answer),
            Action::Warn(message) => return super::driver::console_warn(&message),
        };
        let shell = self.shell.borrow().clone();
        if let Some(shell) = shell {
            shell.perform(kind, n, &a, &b);
        }
        if kind == "shut" {
            // The shell holds the app's outbox: let go of it, so that both can be collected.
            self.shell.replace(None);
        }
    }
}

/// Whether the platform is online (`navigator.onLine` not false), its document hidden.
fn online(platform: &JsValue) -> bool {
    field(&field(platform, "navigator"), "onLine").as_bool() != Some(false)
}

fn hidden(platform: &JsValue) -> bool {
    field(platform, "document").text("visibilityState").as_deref() == Some("hidden")
}

/// A failure the shell told (none: nothing failed).
fn failure(cause: JsValue) -> Option<Failure<JsValue>> {
    (!cause.is_null_or_undefined()).then(|| Failure { said: said(&cause), cause: Some(cause) })
}
