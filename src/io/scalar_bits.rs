//! Exact conversions between a generic [`Scalar`] and fixed-width integers,
//! for the file formats (`Scalar::to_f64` would lose 64-bit integers above 2^53).

use std::any::Any;

use crate::scalar::{Scalar, ScalarType};

/// The value as 8 little-endian-ready bits: the type's own bit pattern,
/// zero-extended (`bool` 0/1, `i32` as its `u32` pattern, floats by `to_bits`).
pub(crate) fn to_bits<T: Scalar>(v: T) -> u64 {
    let a = &v as &dyn Any;
    if let Some(&x) = a.downcast_ref::<bool>() {
        x as u64
    } else if let Some(&x) = a.downcast_ref::<i32>() {
        x as u32 as u64
    } else if let Some(&x) = a.downcast_ref::<u32>() {
        x as u64
    } else if let Some(&x) = a.downcast_ref::<i64>() {
        x as u64
    } else if let Some(&x) = a.downcast_ref::<u64>() {
        x
    } else if let Some(&x) = a.downcast_ref::<f32>() {
        x.to_bits() as u64
    } else if let Some(&x) = a.downcast_ref::<f64>() {
        x.to_bits()
    } else {
        unreachable!("Scalar is implemented only for the seven built-in types")
    }
}

/// Inverse of [`to_bits`] for the type `ty`; `None` when the bits are not a
/// value of that type (a `bool` other than 0/1, high bits set for a 32-bit type).
pub(crate) fn from_bits<T: Scalar>(ty: ScalarType, bits: u64) -> Option<T> {
    let narrow = u32::try_from(bits).ok();
    let any: Box<dyn Any> = match ty {
        ScalarType::Bool if bits <= 1 => Box::new(bits == 1),
        ScalarType::I32 => Box::new(narrow? as i32),
        ScalarType::U32 => Box::new(narrow?),
        ScalarType::I64 => Box::new(bits as i64),
        ScalarType::U64 => Box::new(bits),
        ScalarType::F32 => Box::new(f32::from_bits(narrow?)),
        ScalarType::F64 => Box::new(f64::from_bits(bits)),
        ScalarType::Bool => return None,
    };
    any.downcast::<T>().ok().map(|b| *b)
}

/// The value of an element type given by its bits, as `f64` (for conversions
/// between types; exact for all but 64-bit integers above 2^53).
pub(crate) fn bits_to_f64(ty: ScalarType, bits: u64) -> Option<f64> {
    Some(match ty {
        ScalarType::Bool => from_bits::<bool>(ty, bits)?.to_f64(),
        ScalarType::I32 => from_bits::<i32>(ty, bits)?.to_f64(),
        ScalarType::U32 => from_bits::<u32>(ty, bits)?.to_f64(),
        ScalarType::I64 => from_bits::<i64>(ty, bits)?.to_f64(),
        ScalarType::U64 => from_bits::<u64>(ty, bits)?.to_f64(),
        ScalarType::F32 => from_bits::<f32>(ty, bits)?.to_f64(),
        ScalarType::F64 => from_bits::<f64>(ty, bits)?,
    })
}

/// The value of element type `ty` given by its bits, written exactly (as
/// the type prints it); `"?"` where the bits are not a `ty`.
pub(crate) fn bits_to_string(ty: ScalarType, bits: u64) -> String {
    fn show<T: Scalar + std::fmt::Display>(ty: ScalarType, bits: u64) -> String {
        from_bits::<T>(ty, bits).map_or_else(|| "?".into(), |v| v.to_string())
    }
    match ty {
        ScalarType::Bool => show::<bool>(ty, bits),
        ScalarType::I32 => show::<i32>(ty, bits),
        ScalarType::U32 => show::<u32>(ty, bits),
        ScalarType::I64 => show::<i64>(ty, bits),
        ScalarType::U64 => show::<u64>(ty, bits),
        ScalarType::F32 => show::<f32>(ty, bits),
        ScalarType::F64 => show::<f64>(ty, bits),
    }
}

/// The value of element type `ty` given by its bits, as `T`, where that is
/// exact: integers and `bool` (as 0/1) within `T`'s range, floats that `T`
/// holds without rounding (NaN stays NaN between float types); `None`
/// otherwise or where the bits are not a `ty`.
pub(crate) fn convert_exact<T: Scalar>(ty: ScalarType, bits: u64) -> Option<T> {
    if ty == T::TYPE {
        return from_bits(ty, bits);
    }
    enum V {
        Int(i128),
        Float(f64),
    }
    let v = match ty {
        ScalarType::Bool => V::Int(from_bits::<bool>(ty, bits)? as i128),
        ScalarType::I32 => V::Int(from_bits::<i32>(ty, bits)? as i128),
        ScalarType::U32 => V::Int(from_bits::<u32>(ty, bits)? as i128),
        ScalarType::I64 => V::Int(from_bits::<i64>(ty, bits)? as i128),
        ScalarType::U64 => V::Int(from_bits::<u64>(ty, bits)? as i128),
        ScalarType::F32 => V::Float(from_bits::<f32>(ty, bits)? as f64),
        ScalarType::F64 => V::Float(from_bits::<f64>(ty, bits)?),
    };
    let int = match v {
        V::Int(x) => Some(x),
        V::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e38 => Some(f as i128),
        V::Float(_) => None,
    };
    let out_bits = match (T::TYPE, v) {
        (ScalarType::F64, V::Float(f)) => f.to_bits(),
        (ScalarType::F32, V::Float(f)) if f.is_nan() => f32::NAN.to_bits() as u64,
        (ScalarType::F32, V::Float(f)) if (f as f32) as f64 == f => (f as f32).to_bits() as u64,
        (ScalarType::F64, V::Int(x)) if (x as f64) as i128 == x => (x as f64).to_bits(),
        (ScalarType::F32, V::Int(x)) if (x as f32) as i128 == x => (x as f32).to_bits() as u64,
        (ScalarType::Bool, _) if int == Some(0) || int == Some(1) => int? as u64,
        (ScalarType::I32, _) => i32::try_from(int?).ok()? as u32 as u64,
        (ScalarType::U32, _) => u32::try_from(int?).ok()? as u64,
        (ScalarType::I64, _) => i64::try_from(int?).ok()? as u64,
        (ScalarType::U64, _) => u64::try_from(int?).ok()?,
        _ => return None,
    };
    from_bits(T::TYPE, out_bits)
}

/// An integer read from text, as `T`: exact (saturating) for 64-bit integer
/// types, through `f64` otherwise (`Scalar::from_f64`: saturating, `!= 0` for bool).
#[inline]
pub(crate) fn from_i128<T: Scalar>(v: i128) -> T {
    match T::TYPE {
        ScalarType::I64 => {
            let x = v.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
            from_bits(T::TYPE, x as u64).expect("i64")
        }
        ScalarType::U64 => {
            let x = v.clamp(0, u64::MAX as i128) as u64;
            from_bits(T::TYPE, x).expect("u64")
        }
        _ => T::from_f64(v as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round<T: Scalar>(v: T) {
        assert_eq!(from_bits::<T>(T::TYPE, to_bits(v)), Some(v));
    }

    #[test]
    fn bits_round_trip() {
        round(true);
        round(-5i32);
        round(u32::MAX);
        round(i64::MIN);
        round(u64::MAX);
        round(-1.5f32);
        round(1e300f64);
        assert_eq!(
            bits_to_string(ScalarType::U64, (1 << 60) + 1),
            "1152921504606846977"
        );
        assert_eq!(
            bits_to_string(ScalarType::F32, 0.5f32.to_bits() as u64),
            "0.5"
        );
        assert_eq!(bits_to_string(ScalarType::Bool, 2), "?");
        assert_eq!(from_bits::<bool>(ScalarType::Bool, 2), None);
        assert_eq!(from_bits::<i32>(ScalarType::I32, 1 << 40), None);
        assert_eq!(from_bits::<f32>(ScalarType::F64, 0), None); // type mismatch
    }

    #[test]
    fn conversions_only_where_exact() {
        let b = |v: f64| v.to_bits();
        assert_eq!(
            convert_exact::<bool>(ScalarType::F32, 1.0f32.to_bits() as u64),
            Some(true)
        );
        assert_eq!(convert_exact::<bool>(ScalarType::F64, b(0.5)), None);
        assert_eq!(convert_exact::<bool>(ScalarType::I32, 2), None);
        assert_eq!(convert_exact::<f64>(ScalarType::Bool, 1), Some(1.0));
        assert_eq!(convert_exact::<f64>(ScalarType::U32, 7), Some(7.0));
        assert_eq!(convert_exact::<f64>(ScalarType::U64, (1 << 60) + 1), None);
        assert_eq!(
            convert_exact::<f64>(ScalarType::U64, 1 << 60),
            Some((1u64 << 60) as f64)
        );
        assert_eq!(
            convert_exact::<f64>(ScalarType::I32, (-3i32) as u32 as u64),
            Some(-3.0)
        );
        assert_eq!(convert_exact::<f32>(ScalarType::F64, b(0.1)), None);
        assert_eq!(convert_exact::<f32>(ScalarType::F64, b(0.5)), Some(0.5));
        assert!(convert_exact::<f32>(ScalarType::F64, b(f64::NAN))
            .unwrap()
            .is_nan());
        assert_eq!(convert_exact::<i32>(ScalarType::F64, b(-4.0)), Some(-4));
        assert_eq!(convert_exact::<i32>(ScalarType::F64, b(1e10)), None);
        assert_eq!(convert_exact::<u64>(ScalarType::I64, (-1i64) as u64), None);
        assert_eq!(
            convert_exact::<u32>(ScalarType::F64, b(f64::INFINITY)),
            None
        );
        assert_eq!(convert_exact::<i64>(ScalarType::F64, b(1e300)), None);
    }

    #[test]
    fn big_integers_exact() {
        assert_eq!(from_i128::<i64>(i64::MAX as i128), i64::MAX);
        assert_eq!(from_i128::<u64>(u64::MAX as i128 - 1), u64::MAX - 1);
        assert_eq!(from_i128::<u64>(-3), 0);
        assert_eq!(from_i128::<i32>(1 << 40), i32::MAX);
        assert!(from_i128::<bool>(2));
    }
}
