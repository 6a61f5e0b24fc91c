//! The public builder of a client for one Polymarket host: the transport's
//! [`Settings`](super::Settings) with the setters that make sense there. `host_client_builder!`
//! defines the whole builder of a client with no layer of its own (Gamma, the Data API);
//! `host_setters!` gives a builder with more settings (the relayer's) the same shared setters.

/// The setters every host builder shares, for a builder with an `http: crate::http::Settings`
/// field: `host`, `timeout`, `retry`, `user_agent`, `proxy`, `no_proxy`. `$name` is the
/// service's name in the docs, `$host` its default URL (the module's `DEFAULT_HOST`, repeated
/// for the docs).
macro_rules! host_setters {
    ($name:literal, $host:literal) => {
        #[doc = concat!("The base URL (a trailing `/` is removed). Default is `", $host, "`.")]
        pub fn host(mut self, host: impl Into<String>) -> Self {
            self.http.set_host(host);
            self
        }

        /// Deadline of one attempt. Default is 10 s.
        pub fn timeout(mut self, timeout: impl Into<Option<std::time::Duration>>) -> Self {
            self.http.timeout = timeout.into();
            self
        }

        #[doc = concat!("Retry policy for the ", $name, "'s idempotent requests. Default is [`RetryPolicy::default`](crate::http::RetryPolicy::default).")]
        pub fn retry(mut self, policy: crate::http::RetryPolicy) -> Self {
            self.http.retry = policy;
            self
        }

        /// The `User-Agent` header. Default is `polyclob/<version>`.
        pub fn user_agent(mut self, ua: impl Into<String>) -> Self {
            self.http.user_agent = ua.into();
            self
        }

        /// Every request through `proxy` (loopback hosts too). Default is the proxy
        /// environment variables ([`Proxy`](crate::http::Proxy#where-it-applies)).
        pub fn proxy(mut self, proxy: crate::http::Proxy) -> Self {
            self.http.proxy = crate::http::proxy::Setting::Fixed(std::sync::Arc::new(proxy));
            self
        }

        /// Never a proxy, whatever the environment says. Default is the proxy
        /// environment variables ([`Proxy`](crate::http::Proxy#where-it-applies)).
        pub fn no_proxy(mut self) -> Self {
            self.http.proxy = crate::http::proxy::Setting::Direct;
            self
        }
    };
}

/// Defines `ClientBuilder` for a `Client { http: crate::http::Client }`: the
/// [shared setters](host_setters), `ip_pacing` on `$service`'s rows of the per-IP table,
/// `new`, `build`, `Default`.
macro_rules! host_client_builder {
    ($name:literal, $host:literal, $service:ident) => {
        #[doc = concat!("Builds a ", $name, " [`Client`]. Setters are infallible and state their default.")]
        #[derive(Debug)]
        #[must_use]
        pub struct ClientBuilder {
            http: crate::http::Settings,
        }

        impl ClientBuilder {
            /// A builder with every default.
            pub fn new() -> Self {
                Self {
                    http: crate::http::Settings::new(DEFAULT_HOST),
                }
            }

            crate::http::host_builder::host_setters!($name, $host);

            #[doc = concat!("Pace every request to the ", $name, "'s per-IP limits (docs.polymarket.com/api-reference/rate-limits; one table with its source in `src/http/limits.rs`, paced by the rule [`Pacer`](crate::http::Pacer) states), so a burst waits on the client instead of being throttled or refused at the edge. Default is `false`.")]
            pub fn ip_pacing(mut self, enabled: bool) -> Self {
                self.http.pacing = enabled.then_some(crate::http::limits::Service::$service);
                self
            }

            /// Builds the client.
            ///
            /// # Errors
            /// When the TLS configuration cannot be set up (no usable root store) or the
            /// HTTP client cannot be built.
            pub fn build(self) -> Result<Client, crate::http::Error> {
                let route = self.http.proxy.resolve();
                Ok(Client {
                    http: self.http.build(&route)?,
                })
            }
        }

        impl Default for ClientBuilder {
            fn default() -> Self {
                Self::new()
            }
        }
    };
}

pub(crate) use {host_client_builder, host_setters};
