//! The public types renamed so that no two share a name (issue 37) keep their old paths for a
//! release, as deprecated aliases of the new types (CHANGELOG, "Changed").
#![allow(deprecated)]

use std::any::TypeId;

use polyclob::{clob, data, decode, gamma, polybolt, rtds, ws};

fn same<A: 'static, B: 'static>() -> bool {
    TypeId::of::<A>() == TypeId::of::<B>()
}

#[test]
fn old_names_are_the_new_types() {
    assert!(same::<clob::types::Book, clob::types::BookSummary>());
    assert!(same::<clob::types::LastTrade, clob::types::LastTradeInfo>());
    assert!(same::<clob::types::Level, clob::types::BookLevel>());
    assert!(same::<clob::types::Levels, clob::types::BookLevels>());
    assert!(same::<clob::tracker::Fill, clob::tracker::TrackedFill>());
    assert!(same::<
        clob::tracker::Position,
        clob::tracker::TrackedPosition,
    >());
    assert!(same::<data::Trade, data::DataTrade>());
    assert!(same::<data::PricePoint, data::DataPricePoint>());
    assert!(same::<decode::Event<'static>, decode::EventView<'static>>());
    assert!(same::<ws::decode::Event<'static>, decode::EventView<'static>>());
    assert!(same::<
        decode::MakerOrder<'static>,
        decode::MakerOrderView<'static>,
    >());
    assert!(same::<gamma::Event, gamma::GammaEvent>());
    assert!(same::<gamma::Market, gamma::GammaMarket>());
    assert!(same::<gamma::FeeSchedule, gamma::GammaFeeSchedule>());
    assert!(same::<
        polybolt::decode::Message<'static>,
        polybolt::decode::BoltMessage<'static>,
    >());
    assert!(same::<
        polybolt::decode::Payload<'static>,
        polybolt::decode::BoltPayload<'static>,
    >());
    assert!(same::<
        polybolt::decode::Snapshot<'static>,
        polybolt::decode::BoltSnapshot<'static>,
    >());
    assert!(same::<polybolt::OwnedMessage, polybolt::OwnedBoltMessage>());
    assert!(same::<
        polybolt::stream::OwnedMessage,
        polybolt::OwnedBoltMessage,
    >());
    assert!(same::<polybolt::Subscription, polybolt::BoltSubscription>());
    assert!(same::<
        polybolt::subscription::Subscription,
        polybolt::BoltSubscription,
    >());
    assert!(same::<rtds::decode::PricePoint, rtds::decode::RtdsPricePoint>());
    assert!(same::<ws::follow::MarketFilter, ws::follow::FollowFilter>());
    // The names that stayed are other types.
    assert!(!same::<rtds::Subscription, polybolt::BoltSubscription>());
    assert!(!same::<data::Position, clob::tracker::TrackedPosition>());
    assert!(!same::<polyclob::book::Book, clob::types::BookSummary>());
}
