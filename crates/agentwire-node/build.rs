//! Links the addon as Node expects to load it (napi-rs's setup for each platform).

fn main() {
    napi_build::setup();
}
